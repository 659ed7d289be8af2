// A poller's loop: one round at a time, the next one a delay after the last ended (never two at
// once, however long a round takes), until stopped; stop() waits for a round in progress. A
// round's error is handed to onError and the loop goes on.

export interface PollingLoop {
  start(): void;
  stop(): Promise<void>;
}

export function pollingLoop(round: () => Promise<void>, delayMs: () => number | Promise<number>, onError: (err: Error) => void): PollingLoop {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let stopped = true;
  const loop = async () => {
    if (stopped) return;
    running = round().catch(onError);
    await running;
    running = null;
    if (stopped) return;
    const delay = await delayMs();
    if (stopped) return;
    timer = setTimeout(() => void loop(), delay);
    timer.unref();
  };
  return {
    start() {
      stopped = false;
      void loop();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
