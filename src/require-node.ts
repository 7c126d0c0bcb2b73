/**
 * Imported first by the entry points (main.ts, cli.ts), so it runs before any other module is
 * evaluated: on a Node older than the project's, a native or WebAssembly dependency crashes the
 * process with a segmentation fault (exit 139) and no message. Say why instead.
 */
const REQUIRED_MAJOR = 24;
const major = Number(process.versions.node.split('.')[0]);
if (major < REQUIRED_MAJOR) {
  console.error(
    `This service needs Node ${REQUIRED_MAJOR} (the project pins node@24.21.0 as a devDependency); this is Node ${process.versions.node}.\n` +
      `Run it through npm (npm start, npm run admin:create -- ..., npm run events:verify), which uses the pinned Node, ` +
      `or call it by path: node_modules/.bin/node ${process.argv[1] ?? 'dist/src/main.js'} ...`,
  );
  process.exit(1);
}
export {};
