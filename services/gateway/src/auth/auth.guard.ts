import { CanActivate, ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { apiError, tooManyRequests } from '../http/api-error';
import type { ClientLimits } from '../limits/client-limits';
import type { ApiTokens, Principal, Role } from './api-tokens';

export const API_TOKENS = Symbol.for('flex.apiTokens');
export const CLIENT_LIMITS = Symbol.for('flex.clientLimits');
export const ROLES_KEY = 'flex:roles';

/** Roles allowed on a route; `admin` is always allowed. */
export const Roles = (...roles: Role[]) => SetMetadata(ROLES_KEY, roles);

export type AuthedRequest = Request & { principal: Principal };

/**
 * Authenticates, authorizes and admits a request (the token's rate and requests in flight) before
 * anything reads its body: the JSON body is read after the guards (JsonBodyInterceptor), so a
 * request without a valid token costs its headers only.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    @Inject(API_TOKENS) private readonly tokens: ApiTokens,
    @Inject(CLIENT_LIMITS) private readonly limits: ClientLimits,
    private readonly reflector: Reflector,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const roles = this.reflector.getAllAndOverride<Role[] | undefined>(ROLES_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!roles) return true;
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw apiError(401, 'unauthorized', 'missing or malformed Authorization: Bearer header');
    const principal = this.tokens.lookup(match[1]);
    if (!principal) throw apiError(401, 'unauthorized', 'unknown API token');
    if (principal.role !== 'admin' && !roles.includes(principal.role)) {
      throw apiError(403, 'forbidden', `role ${principal.role} may not do this`, { allowed: roles });
    }
    const admission = this.limits.admitRequest(principal.id);
    if (!admission.ok) throw tooManyRequests(admission.refusal);
    // 'close' comes once the response is sent or the client has gone, whichever is first.
    context.switchToHttp().getResponse<Response>().once('close', admission.release);
    req.principal = principal;
    return true;
  }
}
