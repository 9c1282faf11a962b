/** sql.js ships no types; sqlite-store.ts narrows the little it uses to its own interface. */
declare module 'sql.js' {
  const initSqlJs: unknown;
  export default initSqlJs;
}
