import Joi from 'joi';

export const emailInputSchema = () => Joi.string().trim().lowercase().email({ tlds: false }).max(254);
