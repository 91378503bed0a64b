/* Text of the 2- and 4-byte string kinds (PEP 393) in gcxwire._speedups' byte
   buffer: a table's rows are written at the kind of the widest string met so
   far, so its text is copied into the result string as it is, never decoded.

   gcx_wide_copy(dst, dkind, src, skind, n, esc): src[0:n] (skind bytes a
   character) into dst (dkind >= skind), each character widened; with esc,
   backslash, TAB and LF become two characters each, as gcx_escape_into writes
   them. dst must hold 2n characters (n without esc); returns the characters
   written. The text is first tested for those three (a loop the compiler
   vectorizes), so text without them is one widening copy.

   gcx_widen(data, from, to, n): data's n characters of kind `from` rewritten
   in kind `to` in place (data holds n * to bytes), last first so that no
   character is overwritten before it is read. */
#ifndef GCXWIRE_GCX_WIDE_H
#define GCXWIRE_GCX_WIDE_H

#include <string.h>
#include <Python.h>

#define GCX_WIDE_COPY(DT, ST)                                                    \
    {                                                                            \
        DT *o = (DT *)dst;                                                       \
        const ST *s = (const ST *)src;                                           \
        Py_ssize_t i, specials = 0;                                              \
        if (esc) {                                                               \
            for (i = 0; i < n; i++) {                                            \
                specials += (s[i] == '\\') | (s[i] == '\t') | (s[i] == '\n');    \
            }                                                                    \
        }                                                                        \
        if (specials == 0) {                                                     \
            for (i = 0; i < n; i++) {                                            \
                o[i] = (DT)s[i];                                                 \
            }                                                                    \
            return n;                                                            \
        }                                                                        \
        for (i = 0; i < n; i++) {                                                \
            ST u = s[i];                                                         \
            if (u == '\\' || u == '\t' || u == '\n') {                           \
                *o++ = '\\';                                                     \
                *o++ = u == '\t' ? 't' : (u == '\n' ? 'n' : '\\');               \
            } else {                                                             \
                *o++ = (DT)u;                                                    \
            }                                                                    \
        }                                                                        \
        return o - (DT *)dst;                                                    \
    }

static Py_ssize_t gcx_wide_copy(
    void *dst, int dkind, const void *src, int skind, Py_ssize_t n, int esc
) {
    if (dkind == PyUnicode_2BYTE_KIND) {
        if (skind == PyUnicode_1BYTE_KIND) GCX_WIDE_COPY(Py_UCS2, Py_UCS1)
        GCX_WIDE_COPY(Py_UCS2, Py_UCS2)
    }
    if (dkind == PyUnicode_4BYTE_KIND) {
        if (skind == PyUnicode_1BYTE_KIND) GCX_WIDE_COPY(Py_UCS4, Py_UCS1)
        if (skind == PyUnicode_2BYTE_KIND) GCX_WIDE_COPY(Py_UCS4, Py_UCS2)
        GCX_WIDE_COPY(Py_UCS4, Py_UCS4)
    }
    GCX_WIDE_COPY(Py_UCS1, Py_UCS1)
}

#undef GCX_WIDE_COPY

static void gcx_widen(void *data, int from, int to, Py_ssize_t n) {
    Py_ssize_t i;
    if (from == PyUnicode_1BYTE_KIND && to == PyUnicode_2BYTE_KIND) {
        for (i = n - 1; i >= 0; i--) ((Py_UCS2 *)data)[i] = ((const Py_UCS1 *)data)[i];
    } else if (from == PyUnicode_1BYTE_KIND && to == PyUnicode_4BYTE_KIND) {
        for (i = n - 1; i >= 0; i--) ((Py_UCS4 *)data)[i] = ((const Py_UCS1 *)data)[i];
    } else if (from == PyUnicode_2BYTE_KIND && to == PyUnicode_4BYTE_KIND) {
        for (i = n - 1; i >= 0; i--) ((Py_UCS4 *)data)[i] = ((const Py_UCS2 *)data)[i];
    }
}

#endif
