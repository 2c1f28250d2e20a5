/** Why the Redis store keeps no groups yet (capabilities.groups false): its contract runs check that instead. */
export const REDIS_WITHOUT_GROUPS = 'the Redis store keeps no groups yet';
