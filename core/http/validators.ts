import type Joi from 'joi';

/**
 * Route validators that are functions rather than joi schemas (an ajv check in front of joi, a
 * check of a response written as JSON text) still have a joi schema behind them: it says what
 * the route takes or answers, and core/http/openapi.ts documents it.
 */
export type JoiBacked<F> = F & { readonly [JOI]: Joi.Schema };

const JOI = Symbol('patchwell.joiSchema');

/** `fn`, carrying the joi schema it validates against. */
export function backedBy<F extends (...args: never[]) => unknown>(fn: F, schema: Joi.Schema): JoiBacked<F> {
  return Object.assign(fn, { [JOI]: schema });
}

/** The joi schema behind a validator function (undefined for anything else). */
export function schemaOf(validator: unknown): Joi.Schema | undefined {
  if (typeof validator === 'function' && JOI in validator) return (validator as JoiBacked<() => void>)[JOI];
  return undefined;
}
