import type { StoredEvent } from '@flex/event-store';
import { BaseRpcContext } from '@nestjs/microservices';
import type { Delivery } from './types';

/**
 * What `@Ctx()` gives a FlexEventsTransport handler: the delivery behind the event, e.g. to call
 * `working()` during long work, or to settle it explicitly.
 */
export class FlexEventContext extends BaseRpcContext<[Delivery]> {
  constructor(delivery: Delivery) {
    super([delivery]);
  }

  getDelivery(): Delivery {
    return this.args[0];
  }

  getEvent(): StoredEvent {
    return this.args[0].event;
  }
}
