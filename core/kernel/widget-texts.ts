/**
 * The twelve keys of BrandProfile.widget_texts, in the spec's order. Two plugins read them: brand
 * stores a profile's texts, widget presents them over its defaults; the list is the spec's, so it lives once here.
 */
export const WIDGET_TEXT_KEYS = [
  'button',
  'title',
  'message_label',
  'message_placeholder',
  'email_label',
  'technical_consent',
  'screenshot_button',
  'screenshot_consent',
  'submit',
  'confirmation',
  'follow_link',
  'error',
] as const;

export type WidgetTextKey = (typeof WIDGET_TEXT_KEYS)[number];
