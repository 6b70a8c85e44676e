import { CanActivate, ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { apiError } from '../http/api-error';
import type { ApiTokens, Principal, Role } from './api-tokens';

export const API_TOKENS = Symbol.for('flex.apiTokens');
const ROLES_KEY = 'flex:roles';

/** Roles allowed on a route; `admin` is always allowed. */
export const Roles = (...roles: Role[]) => SetMetadata(ROLES_KEY, roles);

export type AuthedRequest = Request & { principal: Principal };

@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    @Inject(API_TOKENS) private readonly tokens: ApiTokens,
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
    req.principal = principal;
    return true;
  }
}
