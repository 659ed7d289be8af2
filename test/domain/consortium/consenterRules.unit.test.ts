// The consenter set rules checked before a consenter change is submitted: each refusal names its
// rule (code and message); the changes Fabric's etcdraft accepts without losing quorum pass.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertConsenterChange, consensusQuorum, quorumOf, type ConsenterSlot } from '../../../domain/consortium/consenterRules.ts';
import { refused } from './ruleFixtures.ts';

const t = suite('consenter set rules');
const slot = (port: number, active = true): ConsenterSlot => ({ host: '127.0.0.1', port, active });

t('quorum is floor(n/2)+1', () => {
  assert.equal([1, 2, 3, 4, 5].map(quorumOf), [1, 2, 2, 3, 3]);
});

t('add: a running follower joins a 1-node set; an orderer that does not run cannot make 2 of 2', () => {
  assertConsenterChange([slot(1)], { kind: 'add', host: '127.0.0.1', port: 2, active: true, certificateProblem: null });
  const e = refused(() => assertConsenterChange([slot(1)], { kind: 'add', host: '127.0.0.1', port: 2, active: false, certificateProblem: null }));
  assert.is(e.status, 409);
  assert.is(e.code, 'CONSENTER_QUORUM');
  assert.match(e.message, /Rule consenter-quorum/);
});

t('add: a certificate the channel cannot verify is a 400 naming rule consenter-certificate; twice is consenter-exists', () => {
  const e = refused(() => assertConsenterChange([slot(1)], { kind: 'add', host: '127.0.0.1', port: 2, active: true, certificateProblem: 'issued by Org9' }));
  assert.is(e.status, 400);
  assert.is(e.code, 'CONSENTER_CERTIFICATE');
  assert.match(e.message, /Rule consenter-certificate: .*issued by Org9/);
  assert.is(refused(() => assertConsenterChange([slot(1)], { kind: 'add', host: '127.0.0.1', port: 1, active: true, certificateProblem: null })).code, 'CONSENTER_EXISTS');
});

t('remove: the last consenter never; below quorum of the new set never; a running pair may lose one', () => {
  assert.is(refused(() => assertConsenterChange([slot(1)], { kind: 'remove', host: '127.0.0.1', port: 1 })).code, 'LAST_CONSENTER');
  assertConsenterChange([slot(1), slot(2)], { kind: 'remove', host: '127.0.0.1', port: 2 });
  // 2 consenters, the other one stopped: the remaining set {2} would have no running consenter.
  const e = refused(() => assertConsenterChange([slot(1), slot(2, false)], { kind: 'remove', host: '127.0.0.1', port: 1 }));
  assert.is(e.code, 'CONSENTER_QUORUM');
  assert.match(e.message, /0 running consenter\(s\) of 1, below the quorum of 1/);
  // 3 of which one is down: removing a running one leaves 1 of 2.
  assert.is(refused(() => assertConsenterChange([slot(1), slot(2), slot(3, false)], { kind: 'remove', host: '127.0.0.1', port: 1 })).code, 'CONSENTER_QUORUM');
  assertConsenterChange([slot(1), slot(2), slot(3, false)], { kind: 'remove', host: '127.0.0.1', port: 3 });
  assert.is(refused(() => assertConsenterChange([slot(1), slot(2)], { kind: 'remove', host: '127.0.0.1', port: 9 })).code, 'CONSENTER_UNKNOWN');
});

t('replace a certificate: the rotated consenter counts as down; a running pair rotates', () => {
  assertConsenterChange([slot(1), slot(2)], { kind: 'replaceCertificate', host: '127.0.0.1', port: 1, certificateProblem: null });
  assertConsenterChange([slot(1), slot(2), slot(3)], { kind: 'replaceCertificate', host: '127.0.0.1', port: 1, certificateProblem: null });
  assert.is(refused(() => assertConsenterChange([slot(1), slot(2), slot(3, false)], { kind: 'replaceCertificate', host: '127.0.0.1', port: 1, certificateProblem: null })).code, 'CONSENTER_QUORUM');
  assert.is(refused(() => assertConsenterChange([slot(1)], { kind: 'replaceCertificate', host: '127.0.0.1', port: 1, certificateProblem: 'expired' })).code, 'CONSENTER_CERTIFICATE');
});

t('replace a certificate (raft): the only consenter, or one whose partner is stopped, is refused naming rule consenter-rotation', () => {
  // Fabric 2.5's etcdraft leader hands leadership to a running follower before ordering a rotation
  // of its own certificate and drops the update when there is none: the sole consenter never can.
  const sole = refused(() => assertConsenterChange([slot(1)], { kind: 'replaceCertificate', host: '127.0.0.1', port: 1, certificateProblem: null }));
  assert.is(sole.status, 409);
  assert.is(sole.code, 'CONSENTER_ROTATION');
  assert.match(sole.message, /^Rule consenter-rotation: 127\.0\.0\.1:1 is the channel's only consenter\./);
  assert.match(sole.message, 'Add a second consenter first');
  assert.match(sole.message, 'Nothing was submitted.');
  const pair = refused(() => assertConsenterChange([slot(1), slot(2, false)], { kind: 'replaceCertificate', host: '127.0.0.1', port: 1, certificateProblem: null }));
  assert.is(pair.code, 'CONSENTER_ROTATION');
  assert.match(pair.message, 'no other consenter of the 2 runs (127.0.0.1:2 stopped)');
  assert.match(pair.message, 'Start the other consenter first');
  // The stopped one of a pair: the running one alone is not a raft quorum of 2, nothing orders.
  const stopped = refused(() => assertConsenterChange([slot(1), slot(2, false)], { kind: 'replaceCertificate', host: '127.0.0.1', port: 2, certificateProblem: null }));
  assert.is(stopped.code, 'CONSENTER_QUORUM');
  assert.match(stopped.message, '1 running consenter(s) of 2, below the quorum of 2');
  // A certificate problem is still said first (400).
  assert.is(refused(() => assertConsenterChange([slot(1)], { kind: 'replaceCertificate', host: '127.0.0.1', port: 1, certificateProblem: 'expired' })).code, 'CONSENTER_CERTIFICATE');
});

t('BFT: quorum is Fabric\'s ceil((n+f+1)/2), f = floor((n-1)/3); n >= 4 after a change is not required, the quorum is', () => {
  assert.equal([1, 2, 3, 4, 5, 6, 7].map((n) => consensusQuorum(n, 'smartbft')), [1, 2, 2, 3, 4, 4, 5]);
  const four = [slot(1), slot(2), slot(3), slot(4)];
  // 4 -> 3 consenters, all running: allowed (Fabric accepts n = 3, which tolerates no fault).
  assertConsenterChange(four, { kind: 'remove', host: '127.0.0.1', port: 4 }, 'smartbft');
  // 5 consenters, 2 stopped: removing a running one leaves 2 of 4 below 3.
  const e = refused(() => assertConsenterChange([slot(1), slot(2), slot(3), slot(4, false), slot(5, false)], { kind: 'remove', host: '127.0.0.1', port: 1 }, 'smartbft'));
  assert.is(e.code, 'CONSENTER_QUORUM');
  assert.match(e.message, 'Rule consenter-quorum');
  assert.match(e.message, 'the BFT quorum ceil((n+f+1)/2) of 3 (n=4, f=1)');
  // 4 consenters with one stopped add a 5th: 4 of 5 run, a BFT quorum of 5 is 4 (raft's would be 3).
  assertConsenterChange([slot(1), slot(2), slot(3), slot(4, false)], { kind: 'add', host: '127.0.0.1', port: 5, active: true, certificateProblem: null }, 'smartbft');
  assert.is(refused(() => assertConsenterChange([slot(1), slot(2), slot(3), slot(4, false)], { kind: 'add', host: '127.0.0.1', port: 5, active: false, certificateProblem: null }, 'smartbft')).code, 'CONSENTER_QUORUM');
  // 5 consenters with one stopped: rotating a running one's certificate leaves 3 of 5 running, below 4 (raft would allow it).
  const five = [slot(1), slot(2), slot(3), slot(4), slot(5, false)];
  assertConsenterChange(five, { kind: 'replaceCertificate', host: '127.0.0.1', port: 1, certificateProblem: null });
  assert.is(refused(() => assertConsenterChange(five, { kind: 'replaceCertificate', host: '127.0.0.1', port: 1, certificateProblem: null }, 'smartbft')).code, 'CONSENTER_QUORUM');
  assertConsenterChange(four, { kind: 'replaceCertificate', host: '127.0.0.1', port: 1, certificateProblem: null }, 'smartbft');
  assert.is(refused(() => assertConsenterChange([slot(1)], { kind: 'remove', host: '127.0.0.1', port: 1 }, 'smartbft')).code, 'LAST_CONSENTER');
});

t.run();
