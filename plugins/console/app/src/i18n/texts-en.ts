// Every catalogue of this locale (en.json and the areas' *.en.json), merged into one chunk that
// i18n/index.ts loads when the console starts in this locale or switches to it.
const files = import.meta.glob<Record<string, unknown>>(['./en.json', './*.en.json'], {
  eager: true,
  import: 'default',
});
export default Object.assign({}, ...Object.values(files)) as Record<string, unknown>;
