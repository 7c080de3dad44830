/*
 * ui.h - the browser view of `saltbox serve` under /ui: a page (HTML, JS,
 * CSS embedded into the binary at build time from src/server/ui/) showing
 * tables, their regions and a live Key Visualizer-style heatmap, and the
 * small JSON API it reads (docs in ui.c). GET/HEAD only; reads the store
 * through the public API, like every other handler.
 */
#ifndef SBX_SERVER_UI_H
#define SBX_SERVER_UI_H

#include "server/rest.h"

#include <stdbool.h>
#include <stddef.h>

/* Whether a raw request path belongs to the UI rather than to HBase's REST
 * routes: "/ui", "/ui/", "/ui/<asset>" and "/ui/api/...". (A table named
 * "ui" keeps its REST routes, except rows named like those.) */
bool ui_owns_path(const char *path);

/* Serve a path ui_owns_path() accepted; query arguments are in rq. */
void ui_handle(rest_request *rq, rest_response *rs);

/* One embedded file (generated: ui_assets.c, from src/server/ui/). */
typedef struct ui_asset {
	const char *name; /* file name, e.g. "ui.js" */
	const char *mime; /* Content-Type */
	const unsigned char *data;
	size_t len;
} ui_asset;

extern const ui_asset ui_assets[];
extern const size_t ui_nassets;

#endif
