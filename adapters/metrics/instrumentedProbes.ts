// Node operations and the observation cache with the health monitor's probes timed and its
// outcomes counted for the service's own metrics; the sagas stay unaware of metrics.
import type { NodeOperationsFor } from '../../domain/nodes/nodeOperations.ts';
import type { NodeObservations } from '../../domain/nodes/nodeObservations.ts';
import type { ServiceMetrics } from '../../domain/metrics/serviceMetrics.ts';

export function instrumentedOperations(operationsFor: NodeOperationsFor, metrics: ServiceMetrics): NodeOperationsFor {
  return async (node, purpose) => {
    const ops = await operationsFor(node, purpose);
    if (!ops) return ops;
    return {
      ...ops,
      async probe(timeoutMs, opts) {
        const started = process.hrtime.bigint();
        const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
        try {
          const reading = await ops.probe(timeoutMs, opts);
          metrics.observeProbeDuration(node.platform, true, seconds());
          return reading;
        } catch (err) {
          metrics.observeProbeDuration(node.platform, false, seconds());
          throw err;
        }
      },
    };
  };
}

export function instrumentedObservations(observations: NodeObservations, metrics: ServiceMetrics): NodeObservations {
  return {
    ...observations,
    async record(outcome) {
      metrics.observeProbeResult(outcome.status);
      await observations.record(outcome);
    },
  };
}
