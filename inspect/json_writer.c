/* json_writer.c — a small streaming JSON writer (see json_writer.h). */
#include <assert.h>
#include <math.h>

#include "json_writer.h"

json_writer json_start(FILE *f)
{
    json_writer w = {f, 0, {0}};
    return w;
}

static void write_escaped(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\') fprintf(f, "\\%c", *c);
        else if (*c < 0x20) fprintf(f, "\\u%04x", *c);
        else fputc(*c, f);
    }
    fputc('"', f);
}

/* The comma and key that come before any value. */
static void value_prefix(json_writer *w, const char *key)
{
    if (w->depth > 0) {
        if (w->has_items[w->depth - 1]) fputc(',', w->f);
        w->has_items[w->depth - 1] = 1;
    }
    if (key) {
        write_escaped(w->f, key);
        fputc(':', w->f);
    }
}

static void open_container(json_writer *w, const char *key, char bracket)
{
    value_prefix(w, key);
    fputc(bracket, w->f);
    assert(w->depth < JSON_MAX_DEPTH);
    w->has_items[w->depth++] = 0;
}

static void close_container(json_writer *w, char bracket)
{
    fputc(bracket, w->f);
    w->depth--;
}

void json_begin_object(json_writer *w, const char *key) { open_container(w, key, '{'); }
void json_end_object(json_writer *w) { close_container(w, '}'); }
void json_begin_array(json_writer *w, const char *key) { open_container(w, key, '['); }
void json_end_array(json_writer *w) { close_container(w, ']'); }

void json_int(json_writer *w, const char *key, int64_t v)
{
    value_prefix(w, key);
    fprintf(w->f, "%lld", (long long)v);
}

void json_double(json_writer *w, const char *key, double v)
{
    value_prefix(w, key);
    if (isfinite(v)) fprintf(w->f, "%.9g", v);
    else fputs("null", w->f);
}

void json_bool(json_writer *w, const char *key, int v)
{
    value_prefix(w, key);
    fputs(v ? "true" : "false", w->f);
}

void json_string(json_writer *w, const char *key, const char *s)
{
    value_prefix(w, key);
    write_escaped(w->f, s);
}

void json_finish(json_writer *w) { fputc('\n', w->f); }
