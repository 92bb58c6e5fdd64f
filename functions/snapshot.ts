/** Lambda entry of the snapshot family: /v1/snapshot/{sector}, /v1/snapshot/all. */
import { snapshotHandlers } from '../shared/families/snapshot/handlers';
import { createFamilyHandler } from '../shared/http/family-handler';
import { SNAPSHOT_ROUTES } from '../shared/routes/table';
import { servicesFromEnvironment } from '../shared/services';

export const handler = createFamilyHandler(SNAPSHOT_ROUTES, snapshotHandlers, servicesFromEnvironment);
