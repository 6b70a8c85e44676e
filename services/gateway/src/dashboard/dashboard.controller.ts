import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { apiError } from '../http/api-error';
import { ApiDoc } from '../openapi/api-doc.decorator';
import { notBuiltPage, type DashboardAssets } from './dashboard-assets';

export const DASHBOARD_ASSETS = Symbol.for('flex.dashboardAssets');

/**
 * The page allows its own script and styles only: no inline code, no eval, no other origin; the
 * API it calls is this origin. The token is typed in by the operator and kept in sessionStorage.
 */
const PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

/** The operator dashboard (apps/dashboard): public static files; every call it makes carries the token. */
@Controller()
export class DashboardController {
  constructor(@Inject(DASHBOARD_ASSETS) private readonly dashboard: DashboardAssets) {}

  @Get()
  @ApiDoc({
    summary: 'The operator dashboard (static HTML; its API calls carry the token)',
    produces: 'text/html',
  })
  page(@Res() res: Response): void {
    res.set({ ...PAGE_HEADERS, 'Cache-Control': 'no-cache', 'Content-Type': 'text/html; charset=utf-8' });
    if (this.dashboard.built) res.status(200).send(this.dashboard.index);
    else res.status(503).send(notBuiltPage(this.dashboard.reason));
  }

  /** The bundle's files, named by their content hash: cached for good. */
  @Get('assets/:file')
  @ApiDoc({
    summary: "The dashboard's script and styles (content-hashed names; the type is the name's)",
    produces: 'application/octet-stream',
  })
  asset(@Param('file') file: string, @Res() res: Response): void {
    const asset = this.dashboard.built ? this.dashboard.assets.get(file) : undefined;
    if (!asset) throw apiError(404, 'not_found', `no dashboard asset ${file.slice(0, 100)}`);
    res.set({
      ...PAGE_HEADERS,
      'Content-Type': asset.contentType,
      'Cache-Control': 'public, max-age=31536000, immutable',
    });
    res.status(200).send(asset.body);
  }
}
