/** Small builders every tickets schema uses, and the answers with no resource of their own. */
import Joi from 'joi';

export const str = Joi.string().allow(null);
export const count = () => Joi.number().integer().min(0);
export const cursor = () =>
  Joi.string()
    .allow(null)
    .required()
    .description('Continues the list with its list operation (`?cursor=`); null when the page holds it all');

export const OkSchema = Joi.object({ ok: Joi.boolean().valid(true).required() }).id('Ok');
