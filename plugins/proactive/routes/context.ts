export const ADMINS = { roles: ['owner', 'admin'] };
export const WORKERS = { roles: ['owner', 'admin', 'reviewer'] };
