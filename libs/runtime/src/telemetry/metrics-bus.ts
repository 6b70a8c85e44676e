import type { EventBus } from '@flex/bus';
import type { FlexMetrics } from './metrics';

/**
 * The bus as `consumer` sees it, counting every delivery (`flex_bus_deliveries_total`: the share of
 * the work this instance took) and each delivery of an event it had been handed before
 * (`flex_bus_redeliveries_total`): a handler that failed, a crash, an ack deadline missed.
 */
export function countingDeliveries(bus: EventBus, metrics: FlexMetrics, consumer: string): EventBus {
  return {
    publish: (events) => bus.publish(events),
    watch: (streamId, onEvent) => bus.watch(streamId, onEvent),
    close: () => bus.close(),
    consume: (options, handler) =>
      bus.consume(options, (delivery) => {
        metrics.count({ family: 'busDeliveries', labels: { consumer } });
        if (delivery.deliveryCount > 1) metrics.count({ family: 'busRedeliveries', labels: { consumer } });
        return handler(delivery);
      }),
  };
}
