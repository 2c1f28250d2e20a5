/** Why a Redis Cluster store keeps no groups (capabilities.groups false): its contract runs check that instead. */
export const REDIS_WITHOUT_GROUPS = "a group's reservations are counted on one Redis master, not across a Cluster";
