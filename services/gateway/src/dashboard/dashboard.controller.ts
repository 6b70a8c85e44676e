import { Controller, Get, Header } from '@nestjs/common';
import { DASHBOARD_HTML } from './dashboard.page';
import { ApiDoc } from '../openapi/api-doc.decorator';

/**
 * A small operator dashboard: the page itself is public and static; every call it makes goes to
 * the API with the token the operator pastes in (kept in the browser's localStorage).
 */
@Controller()
export class DashboardController {
  @Get()
  @ApiDoc({ summary: 'The operator dashboard (static HTML; its calls carry the token)' })
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header(
    'Content-Security-Policy',
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'",
  )
  @Header('X-Content-Type-Options', 'nosniff')
  page(): string {
    return DASHBOARD_HTML;
  }
}
