import { Controller, Inject, Module, type DynamicModule, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, Payload } from '@nestjs/microservices';
import { FlexEventErrorFilter } from '@flex/bus';
import type { EventPayload } from '@flex/contracts';
import { interpret, Meter } from '@flex/logic';
import type { StoredEvent } from '@flex/event-store';
import { eventsTransport, type ServiceRuntime } from '@flex/runtime';

/** The durable name of the poison consumer: a service like any other, as far as the bus knows. */
export const POISON_CONSUMER = 'poison';

const STORE = Symbol('poison.store');

/** The objective's marker naming the event types a run's poison consumer cannot handle. */
export function poisoned(objective: string, types: readonly string[]): string {
  return `${objective} [poison: ${types.join(' ')}]`;
}

/**
 * The objective's marker naming the event types on which the poison consumer evaluates a rule
 * over its evaluation budget: `EvaluationBudgetExceeded`, thrown as a handler that did not catch
 * it would throw it. Not retryable, so the message dead-letters at its first delivery.
 */
export function overBudget(objective: string, types: readonly string[]): string {
  return `${objective} [over budget: ${types.join(' ')}]`;
}

/** Three nested `map`s over 40 items, the innermost allocating 40 more: 2.5 million steps. */
const list = Array.from({ length: 40 }, (_, i) => i);
const COSTLY_RULE = { map: [list, { map: [list, { map: [list, list] }] }] };

/**
 * A handler that fails on every delivery of the events its run's objective names (see
 * {@link poisoned}), as a bug or a bad message would: a retryable error each time, until the
 * message dead-letters; or with an evaluation over its budget (see {@link overBudget}).
 */
@Controller()
class PoisonHandler {
  constructor(@Inject(STORE) private readonly runtime: ServiceRuntime) {}

  @EventPattern('node_start')
  onNodeStart(@Payload() event: StoredEvent) {
    return this.check(event);
  }

  @EventPattern('policy_triggered')
  onPolicyTriggered(@Payload() event: StoredEvent) {
    return this.check(event);
  }

  @EventPattern('hitl_request')
  onHitlRequest(@Payload() event: StoredEvent) {
    return this.check(event);
  }

  @EventPattern('complete')
  onComplete(@Payload() event: StoredEvent) {
    return this.check(event);
  }

  private async check(event: StoredEvent): Promise<void> {
    const [start] = await this.runtime.store.readStream(event.streamId, { limit: 1 });
    const objective = (start?.payload as EventPayload<'start'> | undefined)?.envelope.objective ?? '';
    const costly = /\[over budget: ([a-z_ ]+)\]/.exec(objective);
    if (costly && costly[1].split(' ').includes(event.type)) interpret(COSTLY_RULE, {}, new Meter());
    const marker = /\[poison: ([a-z_ ]+)\]/.exec(objective);
    if (marker && marker[1].split(' ').includes(event.type)) {
      throw Object.assign(new Error(`poisoned ${event.type} of ${event.streamId}`), {
        code: 'poisoned',
        retryable: true,
      });
    }
  }
}

@Module({})
class PoisonModule {
  static forRuntime(runtime: ServiceRuntime): DynamicModule {
    return {
      module: PoisonModule,
      controllers: [PoisonHandler],
      providers: [{ provide: STORE, useValue: runtime }],
    };
  }
}

/** Starts the poison consumer on the runtime's bus, wired as every service is (`eventsTransport`). */
export async function startPoisonConsumer(runtime: ServiceRuntime): Promise<INestMicroservice> {
  const strategy = eventsTransport(runtime, POISON_CONSUMER, 4);
  const service = await NestFactory.createMicroservice(PoisonModule.forRuntime(runtime), {
    strategy,
    logger: false,
  });
  service.useGlobalFilters(new FlexEventErrorFilter());
  await service.listen();
  return service;
}
