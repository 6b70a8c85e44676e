import { Catch, type ArgumentsHost } from '@nestjs/common';
import { BaseRpcExceptionFilter } from '@nestjs/microservices';
import { throwError, type Observable } from 'rxjs';
import { FlexEventContext } from './flex-event.context';

/**
 * Nest's default RPC filter turns every unknown error into `{ status: 'error', message: 'Internal
 * server error' }`, losing its `code` and `retryable` flag. Registered as a global filter of the
 * microservice (`app.useGlobalFilters(new FlexEventErrorFilter())`), this one hands FlexEventsTransport
 * handlers' errors back to the transport unchanged, so retry and dead-letter rules see them as thrown.
 * Errors of other transports get Nest's default treatment.
 */
@Catch()
export class FlexEventErrorFilter extends BaseRpcExceptionFilter {
  override catch(exception: unknown, host: ArgumentsHost): Observable<never> {
    if (host.getType() === 'rpc' && host.switchToRpc().getContext() instanceof FlexEventContext) {
      return throwError(() => exception);
    }
    return super.catch(exception, host) as Observable<never>;
  }
}
