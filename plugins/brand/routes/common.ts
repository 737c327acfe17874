export const OWNERS_ADMINS = { roles: ['owner', 'admin'] };
