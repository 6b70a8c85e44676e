/** The route description lives beside the runtime's HealthController, which uses it too. */
export { ApiDoc, API_DOC_KEY, type ApiDocInput } from '@flex/runtime';
