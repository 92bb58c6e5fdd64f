/** Lambda entry of the snapshot family: /v1/snapshot/{sector}, /v1/snapshot/all. */
import { snapshotHandlers } from '../shared/families/snapshot/handlers';
import { createFamilyHandler } from '../shared/http/family-handler';
import { servicesFromEnvironment } from '../shared/services';

export const handler = createFamilyHandler('snapshot', snapshotHandlers, servicesFromEnvironment);
