// Both the EventStoreDB client and Fabric's protos define google.rpc.Status in google-protobuf's
// process-global namespace; fabric-gateway's error path must work whichever was loaded last.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { google } from '@hyperledger/fabric-protos';
import anyPb from 'google-protobuf/google/protobuf/any_pb.js';
import kurrentStatus from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/status_pb.js';
import '../../../adapters/eventstore/eventStoreDbEventStore.ts';

const global = globalThis as unknown as { proto: { google: { rpc: { Status: unknown } } } };

function fabricStatusBytes(): Uint8Array {
  const s = new google.rpc.Status();
  s.setCode(10);
  s.setMessage('endorsement failed');
  const any = new anyPb.Any();
  any.setTypeUrl('type.googleapis.com/gateway.ErrorDetail');
  any.setValue(new Uint8Array([1, 2, 3]));
  s.setDetailsList([any]);
  return s.serializeBinary();
}

test('the class registered last in the global protobuf namespace is the EventStoreDB client\'s here, and fabric-gateway\'s error decoding still reads the details list', () => {
  const bytes = fabricStatusBytes();
  for (const winner of [(kurrentStatus as unknown as { Status: unknown }).Status, google.rpc.Status]) {
    const saved = global.proto.google.rpc.Status;
    global.proto.google.rpc.Status = winner;
    try {
      const decoded = google.rpc.Status.deserializeBinary(bytes) as unknown as { getDetailsList(): Array<{ getTypeUrl(): string }>; getDetails(): unknown; getMessage(): string };
      assert.is(decoded.getMessage(), 'endorsement failed');
      assert.is(decoded.getDetailsList().length, 1);
      assert.is(decoded.getDetailsList()[0].getTypeUrl(), 'type.googleapis.com/gateway.ErrorDetail');
      assert.ok(decoded.getDetails());
    } finally {
      global.proto.google.rpc.Status = saved;
    }
  }
});

test.run();
