/**
 * Lambda entry of the Pro routes (/pro, checkout, webhook, success page). Its configuration adds
 * the Stripe keys from their secret, read once at cold start (top-level await).
 */
import { proHandlers } from '../shared/families/pro/handlers';
import { loadConfigWithStripeSecret } from '../shared/config/secrets';
import { createFreeFamilyHandler } from '../shared/http/family-handler';
import { PRO_ROUTES } from '../shared/routes/table';
import { createServices } from '../shared/services';

const services = createServices(await loadConfigWithStripeSecret());

export const handler = createFreeFamilyHandler(PRO_ROUTES, proHandlers, () => services);
