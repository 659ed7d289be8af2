// Whether the docker tests can run here: a Docker Engine that answers, the local anvil image
// built by .ci/docker.sh, and a container that actually runs. Returns why not, for the
// skip message; undefined when everything is there.
import Docker from 'dockerode';
import { execFileSync } from 'node:child_process';

export const anvilImage = process.env.LNM_ANVIL_IMAGE ?? 'lnm-anvil:local';

let checked: Promise<string | undefined> | undefined;

/** Why the docker tests cannot run here, checked once per test run (the smoke run costs a container start). */
export function dockerSkipReason(): Promise<string | undefined> {
  checked ??= checkDocker(new Docker());
  return checked;
}

/** Images `npm run test:bare` hides: built from hand-built programs, so a fresh machine has none (test/helpers/bareMachine.ts). */
const hiddenImages = new Set((process.env.LNM_TEST_HIDDEN_IMAGES ?? '').split(',').filter(Boolean));

/** The first of `images` the local Docker Engine lacks, as a skip reason; undefined when it has them all. */
export async function imagesMissing(images: string[], docker = new Docker()): Promise<string | undefined> {
  for (const image of images) {
    if (hiddenImages.has(image) || hiddenImages.has(image.replace(/:[^:/]*$/, ':*'))) return `the image ${image} is hidden by the bare run (a fresh machine has no image built from hand-built programs)`;
    try {
      await docker.getImage(image).inspect();
    } catch {
      return `the image ${image} is missing; run .ci/docker.sh as root to build it`;
    }
  }
  return undefined;
}

async function checkDocker(docker: Docker): Promise<string | undefined> {
  try {
    await Promise.race([docker.ping(), new Promise((_, reject) => setTimeout(() => reject(new Error('no answer within 3 s')), 3000).unref())]);
  } catch (err) {
    return `no Docker Engine answers (${(err as Error).message}); run .ci/docker.sh as root to start one`;
  }
  try {
    await docker.getImage(anvilImage).inspect();
  } catch {
    return `the image ${anvilImage} is missing; run .ci/docker.sh to build it`;
  }
  // A Docker Engine may answer yet be unable to run containers (cgroups, namespaces).
  let container: Docker.Container | undefined;
  try {
    container = await docker.createContainer({ Image: anvilImage, Cmd: ['--version'], HostConfig: { NetworkMode: 'host' }, Labels: { 'lnm.test': 'smoke' } });
    await container.start();
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    if (StatusCode !== 0) return `a container of ${anvilImage} exited with code ${StatusCode}`;
  } catch (err) {
    return `the Docker Engine cannot run containers here (${(err as Error).message})`;
  } finally {
    await container?.remove({ force: true }).catch(() => undefined);
  }
  return undefined;
}

/** Why Docker Compose cannot be used here (neither `docker compose` nor `docker-compose` answers), or undefined. */
export function composeMissing(): string | undefined {
  for (const cmd of [['docker', 'compose', 'version'], ['docker-compose', 'version']]) {
    try {
      execFileSync(cmd[0], cmd.slice(1), { stdio: 'ignore' });
      return undefined;
    } catch {
      /* the next spelling */
    }
  }
  return 'Docker Compose is not installed (apt-get install docker-compose)';
}
