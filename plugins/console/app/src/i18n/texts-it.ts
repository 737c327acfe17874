// Every catalogue of this locale (it.json and the areas' *.it.json), merged into one chunk that
// i18n/index.ts loads when the console starts in this locale or switches to it.
const files = import.meta.glob<Record<string, unknown>>(['./it.json', './*.it.json'], {
  eager: true,
  import: 'default',
});
export default Object.assign({}, ...Object.values(files)) as Record<string, unknown>;
