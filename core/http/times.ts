import Joi from 'joi';

/**
 * A stored time as the API writes it: ISO 8601 in UTC. Rows answer a Date (pg, knex) or the text a JSON
 * path returns; a missing time stays null. The one helper every serializer uses.
 */
export function iso(d: Date | string): string;
export function iso(d: Date | string | null | undefined): string | null;
export function iso(d: Date | string | null | undefined): string | null {
  if (d == null || d === '') return null;
  return (d instanceof Date ? d : new Date(d)).toISOString();
}

/** A time in a request or an answer schema: the ISO 8601 text `iso()` writes (documented as date-time). */
export function isoTime(): Joi.StringSchema {
  return Joi.string().isoDate();
}

/** A time an answer always carries, null while it has not happened. */
export function nullableTime(): Joi.StringSchema {
  return isoTime().allow(null).required();
}
