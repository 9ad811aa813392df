/**
 * The web demo's Node side, as the CLI's `serve` command uses it: build the page
 * with Vite when it is stale and serve it on 127.0.0.1.
 */
export { type BuildPageOptions, buildPage, type PageBuildInfo, pageNeedsBuild } from "./page-build.js";
export { defaultPageDir, webRoot } from "./paths.js";
export { type ServedPage, type ServePageOptions, servePage } from "./serve-page.js";
export { type StaticServer, startStaticServer } from "./static-server.js";
