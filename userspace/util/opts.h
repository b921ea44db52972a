/* SPDX-License-Identifier: BSD-3-Clause */
/* opts.h - the one validation of the library's sized options structs (libbpf's
 * OPTS_VALID and __last_field). Internal to libxtx; header-only, so that every component
 * (stage, scheduler, engine) can use it without a link dependency.
 *
 * Every public `struct xtx_*_opts` starts with `size_t sz`, which the caller sets to
 * sizeof() of the struct as its header declares it, and its header names two fields:
 *   TYPE__last_field  the last field this library knows; its end is the known size.
 *   TYPE__min_field   the last field of the struct's first release; sz below that
 *                     release's sizeof (the field's end rounded up to the struct's
 *                     alignment) is no version of the struct (a bug in the caller):
 *                     refused.
 * sz smaller than the known size (a caller built against an older header): the fields
 * beyond sz read as zero, their default. sz larger (a newer header): accepted only if every
 * byte beyond the known size is zero, i.e. the caller set no option that this library
 * would silently ignore. Both refusals are -EINVAL with a message.
 *
 * Use XTX_OPTS_LOAD() to validate and take a copy whose every field may be read, or
 * XTX_OPTS_VALID() to validate only. opts NULL is valid (all defaults).
 */
#ifndef XTX_OPTS_H
#define XTX_OPTS_H

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define xtx_offsetofend(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

/* The sizes the header's markers give for `struct NAME`. */
#define XTX_OPTS_MIN(name)							\
	((xtx_offsetofend(struct name, name##__min_field) + _Alignof(struct name) - 1) &	\
	 ~(_Alignof(struct name) - 1))
#define XTX_OPTS_KNOWN(name)	xtx_offsetofend(struct name, name##__last_field)

/* 0 if opts (of `struct name`, or NULL) may be used; -EINVAL with a message in err. */
#define XTX_OPTS_VALID(opts, name, err, errlen)					\
	_xtx_opts_valid((opts), (opts) ? (opts)->sz : 0,		\
			XTX_OPTS_MIN(name), XTX_OPTS_KNOWN(name), #name, (err), (errlen))

/* Validate opts (may be NULL) and copy it into *dst: zeroed, then the bytes the caller's
 * struct and this library's have in common; dst->sz is set to the known size. 0 or
 * -EINVAL with a message in err (dst zeroed). */
#define XTX_OPTS_LOAD(dst, opts, name, err, errlen) ({				\
	int rc_ = XTX_OPTS_VALID(opts, name, err, errlen);			\
	_Static_assert(sizeof(*(dst)) >= XTX_OPTS_KNOWN(name), #name);		\
	memset((dst), 0, sizeof(*(dst)));					\
	if (!rc_ && (opts)) {							\
		size_t sz_ = (opts)->sz < XTX_OPTS_KNOWN(name) ? (opts)->sz :	\
			     XTX_OPTS_KNOWN(name);				\
		memcpy((dst), (opts), sz_);					\
		(dst)->sz = XTX_OPTS_KNOWN(name);				\
	}									\
	rc_;									\
})

static inline int _xtx_opts_valid(const void *opts, size_t sz, size_t min, size_t known,
				  const char *name, char *err, size_t errlen)
{
	const unsigned char *p = opts;

	if (!opts)
		return 0;
	if (sz < min) {
		if (err && errlen)
			snprintf(err, errlen, "struct %s: sz %zu is too small (at least %zu): "
				 "set sz = sizeof(struct %s)", name, sz, min, name);
		return -EINVAL;
	}
	for (size_t i = known; i < sz; i++)
		if (p[i]) {
			if (err && errlen)
				snprintf(err, errlen, "struct %s: sz %zu is larger than this "
					 "libxtx knows (%zu) and byte %zu is not zero: the "
					 "caller sets an option this libxtx does not have; "
					 "build against the headers of the libxtx it runs "
					 "with", name, sz, known, i);
			return -EINVAL;
		}
	return 0;
}

#endif /* XTX_OPTS_H */
