// Stands for the service in a process of its own: starts one anvil node with the engine named
// on the command line, prints {"started": ...} and waits to be killed, so a test can crash
// "the service" and check that the node outlives it.
// Usage: tsx serviceProcess.ts <process|docker> <dataDir> <nodeKey> <port>
import { createProcessEngine } from '../../../adapters/engines/processEngine.ts';
import { createDockerEngine } from '../../../adapters/engines/dockerEngine.ts';
import { anvilImage } from '../../helpers/dockerAvailability.ts';
import { anvilSpec } from './fixtures.ts';

const [kind, dataDir, nodeKey, port] = process.argv.slice(2);
const engine = kind === 'docker' ? createDockerEngine({ dataDir }) : createProcessEngine({ dataDir });
const spec = anvilSpec(nodeKey, Number(port));
spec.docker = { ...spec.docker!, image: anvilImage };
try {
  await engine.prepare(spec);
  const started = await engine.start(spec);
  process.stdout.write(JSON.stringify({ started }) + '\n');
} catch (err) {
  process.stdout.write(JSON.stringify({ error: (err as Error).message }) + '\n');
  process.exit(1);
}
setInterval(() => undefined, 60_000);
