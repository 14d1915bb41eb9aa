// SPDX-License-Identifier: GPL-2.0
/*
 * fistgen: generate a stackable file system for Linux 6.12 from a FiST
 * description.
 *
 *   fistgen [-T kernel|fuse] [-t TEMPLATEDIR] -o OUTDIR NAME.fist
 *
 * NAME.fist is read whole and checked whole first: any error is printed as
 * "file:line:col: message" and nothing is written.  Then the templates
 * (tools/fistgen/templates) are filled in, into OUTDIR: the module's C
 * files, NAME.h, NAME_ioctl.h when the description declares ioctls, and a
 * Kbuild for "make -C KERNEL M=OUTDIR"; or, with -T fuse, the same file
 * system as a libfuse3 daemon (templates/fuse) and a Makefile for it.
 * tools/fistgen/README.md describes the language.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef FISTGEN_TEMPLATES
#define FISTGEN_TEMPLATES "templates"
#endif

/* A growable string. */
struct buf {
	char *s;
	size_t len, cap;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = realloc(b->s, b->cap);
		if (!b->s) {
			perror("fistgen");
			exit(2);
		}
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void buf_str(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

static void buf_printf(struct buf *b, const char *fmt, ...)
{
	char tmp[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	buf_add(b, tmp, n < (int)sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/*
 * The operations a rule may name.  $0 and $1... are the names of the
 * template's parameters; sb is how the operation reaches its super_block.
 */
struct vop {
	const char *name;
	const char *args[6];
	const char *sb;
	bool call;		/* may a call rule replace the lower call? */
};

static const struct vop vops[] = {
	{ "lookup", { "dentry", "dir", "flags" }, "dir->i_sb", false },
	{ "create", { "dentry", "dir", "mode" }, "dir->i_sb", false },
	{ "mkdir", { "dentry", "dir", "mode" }, "dir->i_sb", false },
	{ "mknod", { "dentry", "dir", "mode", "rdev" }, "dir->i_sb", false },
	{ "unlink", { "dentry", "dir" }, "dir->i_sb", false },
	{ "rmdir", { "dentry", "dir" }, "dir->i_sb", false },
	{ "rename", { "old_dentry", "old_dir", "new_dir", "new_dentry", "flags" },
	  "old_dir->i_sb", false },
	{ "link", { "old_dentry", "dir", "new_dentry" }, "dir->i_sb", false },
	{ "symlink", { "dentry", "dir", "symname" }, "dir->i_sb", false },
	{ "setattr", { "dentry", "ia" }, "dentry->d_sb", true },
	{ "getattr", { "path", "stat", "request_mask", "query_flags" },
	  "path->dentry->d_sb", true },
	{ "open", { "file", "inode" }, "inode->i_sb", false },
	{ "read", { "iocb", "iter" }, "file_inode(iocb->ki_filp)->i_sb", true },
	{ "write", { "iocb", "iter" }, "file_inode(iocb->ki_filp)->i_sb", true },
	{ "readdir", { "file", "ctx" }, "file_inode(file)->i_sb", true },
	{ "ioctl", { "file", "cmd", "arg" }, "file_inode(file)->i_sb", true },
};
#define NVOPS (sizeof(vops) / sizeof(vops[0]))

enum when { PRECALL, CALL, POSTCALL, NWHEN };
static const char *const whens[NWHEN] = { "precall", "call", "postcall" };

struct rule {
	int line;
	char *code;		/* between the braces */
	int emitted;
};

struct ioctl {
	char *name;
	char *fields;
	int line, col;
	struct rule rule;
};

/* What is generated: a kernel module (the default) or a FUSE daemon. */
enum target { KERNEL, FUSE };
static enum target target = KERNEL;

static struct {
	const char *file;	/* as given, for errors */
	const char *base;	/* its name, for the generated comments */
	char *fs;		/* the file system's name: the file's */
	bool debug, data, name, readonly, writeonly;
	int data_line, data_col, name_line, name_col;
	struct buf verbatim;
	struct buf pervfs;	/* the struct's member lines */
	char *fields[64];
	int nfields;
	char *mntflags[32];
	int nmntflags;
	struct ioctl ioctls[32];
	int nioctls;
	struct rule rules[NVOPS + 1][NWHEN];	/* NVOPS: "all" */
	struct buf extra;	/* the additional C */
	int extra_line;
	int errors;
} fist;

static void error(int line, int col, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d:%d: ", fist.file, line, col);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fist.errors++;
}

/* The description, and a cursor that knows its line and column. */
static const char *src;
static size_t pos, srclen;
static int line = 1, col = 1;

static int peek(void)
{
	return pos < srclen ? (unsigned char)src[pos] : EOF;
}

static int peek_at(size_t n)
{
	return pos + n < srclen ? (unsigned char)src[pos + n] : EOF;
}

static int next(void)
{
	int c = peek();

	if (c == EOF)
		return c;
	pos++;
	if (c == '\n') {
		line++;
		col = 1;
	} else {
		col++;
	}
	return c;
}

static bool at_line_start(void)
{
	return col == 1;
}

/* Is the line at the cursor, blanks aside, exactly @word? */
static bool line_is(const char *word)
{
	size_t p = pos, n = strlen(word);

	if (!at_line_start())
		return false;
	if (srclen - p < n || strncmp(src + p, word, n))
		return false;
	p += n;
	while (p < srclen && (src[p] == ' ' || src[p] == '\t' || src[p] == '\r'))
		p++;
	return p == srclen || src[p] == '\n';
}

static void skip_line(void)
{
	while (peek() != EOF && next() != '\n')
		;
}

/* Skips blanks, newlines and C comments; false at an unterminated one. */
static bool skip_space(void)
{
	for (;;) {
		int c = peek();

		if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			next();
		} else if (c == '/' && peek_at(1) == '/') {
			skip_line();
		} else if (c == '/' && peek_at(1) == '*') {
			int l = line, cl = col;

			next();
			next();
			while (peek() != EOF && !(peek() == '*' && peek_at(1) == '/'))
				next();
			if (peek() == EOF) {
				error(l, cl, "unterminated comment");
				return false;
			}
			next();
			next();
		} else {
			return true;
		}
	}
}

static char *ident(void)
{
	size_t start = pos;

	if (!(isalpha(peek()) || peek() == '_'))
		return NULL;
	while (isalnum(peek()) || peek() == '_')
		next();
	return strndup(src + start, pos - start);
}

static bool valid_ident(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

/*
 * Reads C up to the brace that closes the one at the cursor, minding
 * strings, character constants and comments.  Returns the text between
 * the braces, or NULL (an error was reported) at the end of the input.
 */
static char *c_block(void)
{
	int l = line, cl = col, depth = 0;
	size_t start;

	next();			/* { */
	start = pos;
	for (;;) {
		int c = peek();

		if (c == EOF || (at_line_start() && line_is("%%"))) {
			error(l, cl, "unterminated block: no matching '}'");
			return NULL;
		}
		if (c == '"' || c == '\'') {
			int q = next(), sl = line, sc = col - 1;

			while (peek() != q) {
				if (peek() == EOF || peek() == '\n') {
					error(sl, sc, "unterminated %s",
					      q == '"' ? "string" : "character constant");
					return NULL;
				}
				if (next() == '\\')
					next();
			}
			next();
		} else if (c == '/' && (peek_at(1) == '/' || peek_at(1) == '*')) {
			if (!skip_space())
				return NULL;
		} else if (c == '{') {
			depth++;
			next();
		} else if (c == '}') {
			if (depth-- == 0) {
				char *s = strndup(src + start, pos - start);

				next();
				return s;
			}
			next();
		} else {
			next();
		}
	}
}

/* The text up to the next ';' on this line, trimmed; NULL if none. */
static char *until_semicolon(void)
{
	size_t start = pos, end;

	while (peek() != EOF && peek() != ';' && peek() != '\n')
		next();
	if (peek() != ';')
		return NULL;
	end = pos;
	next();
	while (start < end && isspace((unsigned char)src[start]))
		start++;
	while (end > start && isspace((unsigned char)src[end - 1]))
		end--;
	return strndup(src + start, end - start);
}

/* The name a C declaration declares: its last identifier before [ = ;. */
static char *declared_name(const char *decl)
{
	const char *end = decl + strcspn(decl, "[=:");
	const char *p = end;

	while (p > decl && isspace((unsigned char)p[-1]))
		p--;
	end = p;
	while (p > decl && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
		p--;
	if (p == end || !valid_ident(strndup(p, end - p)) || p == decl)
		return NULL;
	return strndup(p, end - p);
}

static void add_field(const char *name, int l, int c)
{
	for (int i = 0; i < fist.nfields; i++) {
		if (!strcmp(fist.fields[i], name)) {
			error(l, c, "'%s' is already a pervfs field", name);
			return;
		}
	}
	if (fist.nfields == 64) {
		error(l, c, "more than 64 pervfs fields");
		return;
	}
	fist.fields[fist.nfields++] = strdup(name);
}

static void declaration(void)
{
	int l = line, c = col;
	char *key = ident(), *val;
	int vl, vc;

	if (!key) {
		error(l, c, "expected a declaration (such as 'filter: data;')");
		skip_line();
		return;
	}
	while (peek() == ' ' || peek() == '\t')
		next();
	/* FiST wrote "debug on;": the colon is optional there. */
	if (peek() == ':') {
		next();
	} else if (strcmp(key, "debug")) {
		error(line, col, "expected ':' after '%s'", key);
		skip_line();
		return;
	}
	while (peek() == ' ' || peek() == '\t')
		next();
	vl = line;
	vc = col;

	if (!strcmp(key, "ioctl")) {
		struct ioctl *io = &fist.ioctls[fist.nioctls];
		char *name = ident();

		if (!name) {
			error(vl, vc, "expected the ioctl's name");
			skip_line();
			return;
		}
		if (!skip_space())
			return;
		if (peek() != '{') {
			error(line, col, "expected '{' and the fields of ioctl %s",
			      name);
			skip_line();
			return;
		}
		for (int i = 0; i < fist.nioctls; i++)
			if (!strcmp(fist.ioctls[i].name, name))
				error(vl, vc, "ioctl %s is declared twice", name);
		if (fist.nioctls == 32) {
			error(vl, vc, "more than 32 ioctls");
			return;
		}
		io->fields = c_block();
		if (!io->fields)
			return;
		io->name = name;
		io->line = vl;
		io->col = vc;
		fist.nioctls++;
		while (peek() == ' ' || peek() == '\t')
			next();
		if (peek() != ';')
			error(line, col, "expected ';' after ioctl %s's fields",
			      name);
		else
			next();
		return;
	}

	val = until_semicolon();
	if (!val) {
		error(line, col, "expected ';' at the end of the declaration");
		skip_line();
		return;
	}
	if (!strcmp(key, "debug")) {
		if (!strcmp(val, "on"))
			fist.debug = true;
		else if (strcmp(val, "off"))
			error(vl, vc, "debug is 'on' or 'off', not '%s'", val);
	} else if (!strcmp(key, "filter")) {
		if (!strcmp(val, "data")) {
			fist.data = true;
			fist.data_line = l;
			fist.data_col = c;
		} else if (!strcmp(val, "name")) {
			fist.name = true;
			fist.name_line = l;
			fist.name_col = c;
		} else {
			error(vl, vc, "unknown filter '%s' (data or name)", val);
		}
	} else if (!strcmp(key, "accessmode")) {
		if (!strcmp(val, "readonly"))
			fist.readonly = true;
		else if (!strcmp(val, "writeonly"))
			fist.writeonly = true;
		else if (strcmp(val, "readwrite"))
			error(vl, vc,
			      "accessmode is readonly, writeonly or readwrite, not '%s'",
			      val);
	} else if (!strcmp(key, "mntflag")) {
		if (!valid_ident(val)) {
			error(vl, vc, "a mount flag is a C identifier, not '%s'",
			      val);
		} else if (fist.nmntflags == 32) {
			error(vl, vc, "more than 32 mount flags");
		} else {
			fist.mntflags[fist.nmntflags++] = val;
			add_field(val, vl, vc);
			buf_printf(&fist.pervfs, "\tbool %s;\n", val);
		}
	} else if (!strcmp(key, "pervfs")) {
		char *name = declared_name(val);

		if (!name) {
			error(vl, vc, "'%s' is not a C declaration of one member",
			      val);
		} else {
			add_field(name, vl, vc);
			buf_printf(&fist.pervfs, "\t%s;\n", val);
		}
	} else {
		error(l, c, "unknown declaration '%s'", key);
	}
}

static const struct vop *find_vop(const char *name, int *idx)
{
	for (size_t i = 0; i < NVOPS; i++) {
		if (!strcmp(vops[i].name, name)) {
			*idx = i;
			return &vops[i];
		}
	}
	return NULL;
}

/*
 * Checks the variables in a rule's @code, which starts at @l:@c: $N must
 * name an argument of @vop (none for "all"), %pervfs.FIELD a declared
 * field; $ret, %op and %sb are always there.
 */
static void check_vars(const char *code, int l, int c, const struct vop *vop,
		       const char *what)
{
	/* An %ioctl rule's $1, its struct, is the same on both targets. */
	bool fuse_ioctl = vop && !strcmp(what, "an %ioctl rule");

	for (const char *p = code; *p; p++) {
		if (*p == '\n') {
			l++;
			c = 1;
			continue;
		}
		if (*p == '"' || *p == '\'') {
			char q = *p;

			for (p++, c++; *p && *p != q; p++, c++)
				if (*p == '\\' && p[1]) {
					p++;
					c++;
				}
			c++;
			continue;
		}
		if (*p == '/' && p[1] == '/') {
			while (p[1] && p[1] != '\n')
				p++;
			continue;
		}
		if (*p == '/' && p[1] == '*') {
			for (p += 2, c += 2; *p && !(*p == '*' && p[1] == '/'); p++) {
				if (*p == '\n') {
					l++;
					c = 0;
				}
				c++;
			}
			if (*p)
				p++, c++;
			c++;
			continue;
		}
		if (*p == '$') {
			if (!strncmp(p + 1, "ret", 3) &&
			    !(isalnum((unsigned char)p[4]) || p[4] == '_')) {
				/* fine */
			} else if (isdigit((unsigned char)p[1])) {
				int n = atoi(p + 1), max = 0;

				if (vop)
					while (max < 6 && vop->args[max])
						max++;
				if (target == FUSE && vop && !(fuse_ioctl && n == 1))
					error(l, c, "$%d of %s is a kernel object: the fuse target has only $ret, %%op and %%pervfs there",
					      n, what);
				else if (!vop)
					error(l, c, "$%d is not defined in %s: only $ret, %%op, %%sb and %%pervfs are",
					      n, what);
				else if (n >= max)
					error(l, c, "$%d is not defined for %s: it has $0 to $%d",
					      n, what, max - 1);
			} else {
				error(l, c, "unknown variable '$%.*s'",
				      (int)strspn(p + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789"),
				      p + 1);
			}
		} else if (*p == '%' && (isalpha((unsigned char)p[1]) || p[1] == '_')) {
			int n = strspn(p + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");

			if (n == 6 && !strncmp(p + 1, "pervfs", 6)) {
				if (!fist.nfields) {
					error(l, c, "%%pervfs used, but no pervfs or mntflag is declared");
				} else if (p[7] == '.') {
					int m = strspn(p + 8, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");
					bool found = false;

					for (int i = 0; i < fist.nfields; i++)
						if ((int)strlen(fist.fields[i]) == m &&
						    !strncmp(fist.fields[i], p + 8, m))
							found = true;
					if (!found)
						error(l, c + 8, "%%pervfs has no field '%.*s'",
						      m, p + 8);
				}
			} else if (n == 2 && !strncmp(p + 1, "sb", 2) &&
				   target == FUSE) {
				error(l, c, "%%sb is the kernel's super_block: the fuse target has only $ret, %%op and %%pervfs in %s",
				      what);
			} else if (!((n == 2 && !strncmp(p + 1, "op", 2)) ||
				     (n == 2 && !strncmp(p + 1, "sb", 2)))) {
				error(l, c, "unknown variable '%%%.*s'", n, p + 1);
			}
		}
		c++;
	}
}

/*
 * A rule's block: blanks and comments, then '{' (else the error @fmt, at
 * the cursor) and C up to its matching '}'.  The code between the braces,
 * with where it starts in @l and @c, or NULL after an error.
 */
__attribute__((format(printf, 3, 4)))
static char *rule_block(int *l, int *c, const char *fmt, ...)
{
	va_list ap;

	if (!skip_space())
		return NULL;
	if (peek() != '{') {
		char msg[512];

		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		error(line, col, "%s", msg);
		skip_line();
		return NULL;
	}
	*l = line;
	*c = col + 1;
	return c_block();
}

static void rule(void)
{
	int l = line, c = col, wl, wc, vl, vc, bl, bc, idx = NVOPS;
	bool bad_call;
	const struct vop *vop = NULL;
	char *kind, *name, *when, *code;
	int w;

	next();			/* % */
	kind = ident();
	if (!kind || (strcmp(kind, "op") && strcmp(kind, "ioctl"))) {
		error(l, c, "expected a rule, '%%op:OPERATION:WHEN {' or '%%ioctl:NAME {'");
		skip_line();
		return;
	}
	if (peek() != ':') {
		error(line, col, "expected ':' after '%%%s'", kind);
		skip_line();
		return;
	}
	next();
	vl = line;
	vc = col;
	name = ident();
	if (!name) {
		error(vl, vc, "expected %s", strcmp(kind, "op") ?
		      "the ioctl's name" : "an operation's name");
		skip_line();
		return;
	}

	if (!strcmp(kind, "ioctl")) {
		struct ioctl *io = NULL;

		for (int i = 0; i < fist.nioctls; i++)
			if (!strcmp(fist.ioctls[i].name, name))
				io = &fist.ioctls[i];
		code = rule_block(&wl, &wc, "expected '{' after %%ioctl:%s", name);
		if (!code)
			return;
		if (!io) {
			error(vl, vc, "ioctl '%s' is not declared", name);
			return;
		}
		if (io->rule.code) {
			error(l, c, "ioctl %s already has a rule, at line %d",
			      name, io->rule.line);
			return;
		}
		{
			static const struct vop iovop = { "ioctl", { "file", "(&arg)" }, "", true };

			check_vars(code, wl, wc, &iovop, "an %ioctl rule");
		}
		io->rule.code = code;
		io->rule.line = l;
		return;
	}

	if (strcmp(name, "all")) {
		vop = find_vop(name, &idx);
		if (!vop) {
			error(vl, vc, "unknown operation '%s'", name);
			skip_line();
			return;
		}
	}
	if (peek() != ':') {
		error(line, col, "expected ':' and precall, call or postcall");
		skip_line();
		return;
	}
	next();
	wl = line;
	wc = col;
	when = ident();
	for (w = 0; w < NWHEN; w++)
		if (when && !strcmp(when, whens[w]))
			break;
	if (w == NWHEN) {
		error(wl, wc, "expected precall, call or postcall");
		skip_line();
		return;
	}
	/* Reported after the block, which is skipped whole. */
	bad_call = w == CALL && (!vop || !vop->call);
	bl = wl;
	bc = wc;
	code = rule_block(&wl, &wc, "expected '{' and the rule's C code");
	if (!code)
		return;
	if (bad_call && !vop) {
		error(bl, bc, "a call rule replaces one operation's call: not 'all'");
		return;
	}
	if (bad_call) {
		error(bl, bc, "%s cannot have a call rule: the VFS expects its objects made (call rules: read, write, readdir, getattr, setattr, ioctl)",
		      vop->name);
		return;
	}
	if (w == CALL && target == FUSE && !strcmp(vop->name, "getattr")) {
		error(bl, bc, "getattr cannot have a call rule in the fuse target: the kernel asks for the attributes at every permission check, and a rule cannot make them");
		return;
	}
	if (fist.rules[idx][w].code) {
		error(l, c, "%s:%s already has a rule, at line %d", name,
		      whens[w], fist.rules[idx][w].line);
		return;
	}
	check_vars(code, wl, wc, vop, vop ? vop->name : "rules on all");
	fist.rules[idx][w].code = code;
	fist.rules[idx][w].line = l;
}

/* Does the additional C define function @name? */
static bool defines(const char *name)
{
	const char *p = fist.extra.s;
	size_t n = strlen(name);

	for (; p && (p = strstr(p, name)); p += n) {
		const char *q = p + n;

		if (p > fist.extra.s && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
			continue;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == '(')
			return true;
	}
	return false;
}

static void parse(void)
{
	/* 1. Declarations */
	for (;;) {
		if (!skip_space())
			return;
		if (peek() == EOF) {
			error(line, col, "expected '%%%%' after the declarations");
			return;
		}
		if (line_is("%%")) {
			skip_line();
			break;
		}
		if (line_is("%{")) {
			int l = line;
			size_t start;

			skip_line();
			start = pos;
			while (peek() != EOF && !line_is("%}"))
				skip_line();
			if (peek() == EOF) {
				error(l, 1, "'%%{' without '%%}'");
				return;
			}
			buf_add(&fist.verbatim, src + start, pos - start);
			skip_line();
			continue;
		}
		declaration();
	}

	/* 2. Rules */
	for (;;) {
		if (!skip_space())
			return;
		if (peek() == EOF)
			return;
		if (line_is("%%")) {
			skip_line();
			break;
		}
		if (peek() == '%') {
			rule();
		} else {
			error(line, col, "expected a rule, '%%op:OPERATION:WHEN {' or '%%ioctl:NAME {'");
			skip_line();
		}
	}

	/* 3. Additional C */
	fist.extra_line = line;
	buf_add(&fist.extra, src + pos, srclen - pos);
}

static void check(void)
{
	static const char *const data_fns[] = { "encode_data", "decode_data" };
	static const char *const name_fns[] = { "encode_filename", "decode_filename" };

	for (int i = 0; i < 2; i++) {
		if (fist.data && !defines(data_fns[i]))
			error(fist.data_line, fist.data_col,
			      "filter: data needs %s() in the additional C", data_fns[i]);
		if (fist.name && !defines(name_fns[i]))
			error(fist.name_line, fist.name_col,
			      "filter: name needs %s() in the additional C", name_fns[i]);
	}
	for (int i = 0; i < fist.nioctls; i++)
		if (!fist.ioctls[i].rule.code)
			error(fist.ioctls[i].line, fist.ioctls[i].col,
			      "ioctl %s has no %%ioctl:%s rule", fist.ioctls[i].name,
			      fist.ioctls[i].name);
	if (fist.readonly && fist.writeonly)
		error(1, 1, "accessmode is declared both readonly and writeonly");
	{
		int io;

		if (find_vop("ioctl", &io) && fist.rules[io][CALL].code && fist.nioctls)
			error(fist.rules[io][CALL].line, 1,
			      "an ioctl call rule replaces the declared ioctls' rules too");
	}
}

/* Generation */

static const char *templates = FISTGEN_TEMPLATES;

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	struct buf b = { 0 };
	char tmp[8192];
	size_t n;

	if (!f)
		return NULL;
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
		buf_add(&b, tmp, n);
	fclose(f);
	if (!b.s)
		buf_add(&b, "", 0);
	if (len)
		*len = b.len;
	return b.s;
}

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fistgen: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* @s with every @from replaced by @to. */
static char *replace(const char *s, const char *from, const char *to)
{
	struct buf b = { 0 };
	size_t n = strlen(from);
	const char *p;

	buf_add(&b, "", 0);
	while ((p = strstr(s, from))) {
		buf_add(&b, s, p - s);
		buf_str(&b, to);
		s = p + n;
	}
	buf_str(&b, s);
	return b.s;
}

static char *upper(const char *s)
{
	char *u = strdup(s);

	for (char *p = u; *p; p++)
		*p = toupper((unsigned char)*p);
	return u;
}

static const char *template_name;

static char *subst_names(const char *s)
{
	char *a = replace(s, "@fs@", fist.fs), *b;
	char magic[16];
	unsigned int h = 0;

	for (const char *p = fist.fs; *p; p++)
		h = h * 31 + (unsigned char)*p;
	snprintf(magic, sizeof(magic), "0x%08x", 0x46490000u | (h & 0xffff));
	b = replace(a, "@FS@", upper(fist.fs));
	free(a);
	a = replace(b, "@magic@", magic);
	free(b);
	return a;
}

/*
 * A rule's code, its variables replaced, re-indented to @indent: the
 * common leading white space of its lines goes.
 */
static void emit_code(struct buf *out, const char *code, const char *indent,
		      const struct vop *vop, const char *sb, const char *opname)
{
	char *text = strdup(code), *p, *t;
	size_t common = (size_t)-1;

	/*
	 * The variables, outside string and character literals and
	 * comments, where check_vars() did not look for them either.
	 */
	{
		struct buf out = { 0 };

		buf_add(&out, "", 0);
		for (p = text; *p; ) {
			size_t n;

			if (*p == '"' || *p == '\'') {
				char q = *p;

				for (n = 1; p[n] && p[n] != q; n++)
					if (p[n] == '\\' && p[n + 1])
						n++;
				n += p[n] == q;
			} else if (p[0] == '/' && p[1] == '/') {
				n = strcspn(p, "\n");
			} else if (p[0] == '/' && p[1] == '*') {
				t = strstr(p + 2, "*/");
				n = t ? (size_t)(t + 2 - p) : strlen(p);
			} else if (*p == '$' && isdigit((unsigned char)p[1]) && vop) {
				int i = atoi(p + 1);

				n = 1 + strspn(p + 1, "0123456789");
				if (i < 6 && vop->args[i]) {
					buf_str(&out, vop->args[i]);
					p += n;
					continue;
				}
			} else if (!strncmp(p, "$ret", 4)) {
				buf_str(&out, "err");
				p += 4;
				continue;
			} else if (!strncmp(p, "%op", 3) && !isalnum((unsigned char)p[3]) &&
				   p[3] != '_') {
				buf_printf(&out, "\"%s\"", opname);
				p += 3;
				continue;
			} else if (!strncmp(p, "%sb", 3) && !isalnum((unsigned char)p[3]) &&
				   p[3] != '_') {
				buf_printf(&out, "(%s)", sb);
				p += 3;
				continue;
			} else if (!strncmp(p, "%pervfs", 7)) {
				if (target == FUSE)
					buf_str(&out, "@fs@_mount.pervfs");
				else
					buf_printf(&out, "@FS@_SB(%s)->pervfs", sb);
				p += 7;
				continue;
			} else {
				n = 1;
			}
			buf_add(&out, p, n);
			p += n;
		}
		free(text);
		text = out.s;
	}
	t = subst_names(text);
	free(text);
	text = t;

	/* Trim blank lines at both ends, then the common indentation. */
	p = text;
	while (*p) {
		size_t n = strspn(p, " \t\r");

		if (p[n] != '\n')
			break;
		p += n + 1;
	}
	t = p + strlen(p);
	while (t > p && isspace((unsigned char)t[-1]))
		t--;
	*t = '\0';
	for (char *l = p; *l; ) {
		size_t n = strspn(l, " \t");

		if (l[n] && l[n] != '\n' && n < common)
			common = n;
		l += strcspn(l, "\n");
		if (*l)
			l++;
	}
	if (common == (size_t)-1)
		common = 0;
	for (char *l = p; *l; ) {
		size_t n = strcspn(l, "\n"), ws = strspn(l, " \t");

		if (ws < n) {
			buf_str(out, indent);
			buf_add(out, l + common, n - common);
		}
		buf_str(out, "\n");
		l += n;
		if (*l)
			l++;
	}
	free(text);
}

static bool cond(const char *c)
{
	bool neg = false, v;

	if (*c == '!') {
		neg = true;
		c++;
	}
	if (!strncmp(c, "rule ", 5)) {
		char op[32], when[16];
		int idx = NVOPS, w;

		if (sscanf(c + 5, "%31s %15s", op, when) != 2 ||
		    !find_vop(op, &idx))
			die("%s: bad condition '%s'", template_name, c);
		for (w = 0; w < NWHEN && strcmp(when, whens[w]); w++)
			;
		if (w == NWHEN)
			die("%s: bad condition '%s'", template_name, c);
		v = fist.rules[idx][w].code ||
		    (w != CALL && fist.rules[NVOPS][w].code);
	} else if (!strcmp(c, "data")) {
		v = fist.data;
	} else if (!strcmp(c, "name")) {
		v = fist.name;
	} else if (!strcmp(c, "ioctl")) {
		v = fist.nioctls > 0;
	} else if (!strcmp(c, "debug")) {
		v = fist.debug;
	} else if (!strcmp(c, "pervfs")) {
		v = fist.nfields > 0;
	} else if (!strcmp(c, "mntflag")) {
		v = fist.nmntflags > 0;
	} else if (!strcmp(c, "verbatim")) {
		v = fist.verbatim.len > 0;
	} else if (!strcmp(c, "readonly")) {
		v = fist.readonly;
	} else if (!strcmp(c, "writeonly")) {
		v = fist.writeonly;
	} else {
		die("%s: unknown condition '%s'", template_name, c);
	}
	return neg ? !v : v;
}

static void emit_rule(struct buf *out, const char *indent, int idx, int w)
{
	struct rule *all = w == CALL ? NULL : &fist.rules[NVOPS][w];
	struct rule *own = &fist.rules[idx][w];
	struct rule *order[2] = { all, own };

	/* "all" runs first before the call and last after it. */
	if (w == POSTCALL) {
		order[0] = own;
		order[1] = all;
	}
	for (int i = 0; i < 2; i++) {
		struct rule *r = order[i];

		if (!r || !r->code)
			continue;
		buf_printf(out, "%s/* %s:%s rule, %s:%d */\n", indent,
			   r == all ? "all" : vops[idx].name, whens[w],
			   fist.base, r->line);
		emit_code(out, r->code, indent, r == all ? NULL : &vops[idx],
			  vops[idx].sb, vops[idx].name);
		r->emitted++;
	}
}

static void emit_generated(struct buf *out, const char *what, const char *indent)
{
	char *up = upper(fist.fs);

	if (!strcmp(what, "verbatim")) {
		buf_str(out, fist.verbatim.s ? fist.verbatim.s : "");
	} else if (!strcmp(what, "pervfs")) {
		/* Members are one tab in. */
		buf_str(out, fist.pervfs.s);
	} else if (!strcmp(what, "mntflag-enum")) {
		for (int i = 0; i < fist.nmntflags; i++)
			buf_printf(out, "%s%s_OPT_%s,\n", indent, up,
				   upper(fist.mntflags[i]));
	} else if (!strcmp(what, "mntflag-spec")) {
		for (int i = 0; i < fist.nmntflags; i++)
			buf_printf(out, "%sfsparam_flag(\"%s\", %s_OPT_%s),\n", indent,
				   fist.mntflags[i], up, upper(fist.mntflags[i]));
	} else if (!strcmp(what, "mntflag-set")) {
		for (int i = 0; i < fist.nmntflags; i++)
			buf_printf(out, "%scase %s_OPT_%s:\n%s\tpervfs->%s = true;\n%s\tbreak;\n",
				   indent, up, upper(fist.mntflags[i]), indent,
				   fist.mntflags[i], indent);
	} else if (!strcmp(what, "mntflag-fuse")) {
		for (int i = 0; i < fist.nmntflags; i++)
			buf_printf(out, "%sFUSE_OPT_KEY(\"%s\", %s_OPT_%s),\n", indent,
				   fist.mntflags[i], up, upper(fist.mntflags[i]));
	} else if (!strcmp(what, "ioctl-cases") && target == FUSE) {
		for (int i = 0; i < fist.nioctls; i++) {
			char *n = upper(fist.ioctls[i].name);

			buf_printf(out, "%scase %s_IOC_%s:\n%s\treturn %s_ioctl_%s(data, size);\n",
				   indent, up, n, indent, fist.fs,
				   fist.ioctls[i].name);
			free(n);
		}
	} else if (!strcmp(what, "ioctl-functions") && target == FUSE) {
		for (int i = 0; i < fist.nioctls; i++) {
			struct ioctl *io = &fist.ioctls[i];
			static const struct vop iovop = { "ioctl", { "file", "(&arg)" }, "", true };

			buf_printf(out, "/* %%ioctl:%s, %s:%d */\n", io->name,
				   fist.base, io->rule.line);
			buf_printf(out, "static int %s_ioctl_%s(void *data, size_t size)\n{\n",
				   fist.fs, io->name);
			buf_printf(out, "\tstruct %s_%s arg;\n\tint err = 0;\n\n",
				   fist.fs, io->name);
			buf_str(out, "\tif (size != sizeof(arg))\n\t\treturn -EINVAL;\n\tmemcpy(&arg, data, sizeof(arg));\n");
			emit_code(out, io->rule.code, "\t", &iovop, "", io->name);
			io->rule.emitted++;
			buf_str(out, "\tif (!err)\n\t\tmemcpy(data, &arg, sizeof(arg));\n\treturn err;\n}\n");
			if (i + 1 < fist.nioctls)
				buf_str(out, "\n");
		}
	} else if (!strcmp(what, "ioctl-cases")) {
		for (int i = 0; i < fist.nioctls; i++) {
			char *n = upper(fist.ioctls[i].name);

			buf_printf(out, "%scase %s_IOC_%s:\n%s\treturn %s_ioctl_%s(file, (void __user *)arg);\n",
				   indent, up, n, indent, fist.fs,
				   fist.ioctls[i].name);
			free(n);
		}
	} else if (!strcmp(what, "ioctl-functions")) {
		for (int i = 0; i < fist.nioctls; i++) {
			struct ioctl *io = &fist.ioctls[i];
			static const struct vop iovop = { "ioctl", { "file", "(&arg)" }, "", true };

			buf_printf(out, "/* %%ioctl:%s, %s:%d */\n", io->name,
				   fist.base, io->rule.line);
			buf_printf(out, "static long %s_ioctl_%s(struct file *file, void __user *uarg)\n{\n",
				   fist.fs, io->name);
			buf_printf(out, "\tstruct %s_%s arg;\n\tlong err = 0;\n\n",
				   fist.fs, io->name);
			buf_str(out, "\tif (copy_from_user(&arg, uarg, sizeof(arg)))\n\t\treturn -EFAULT;\n");
			emit_code(out, io->rule.code, "\t", &iovop,
				  "file_inode(file)->i_sb", io->name);
			io->rule.emitted++;
			buf_str(out, "\tif (!err && copy_to_user(uarg, &arg, sizeof(arg)))\n\t\terr = -EFAULT;\n\treturn err;\n}\n");
			if (i + 1 < fist.nioctls)
				buf_str(out, "\n");
		}
	} else {
		die("%s: unknown marker '%s'", template_name, what);
	}
	free(up);
}

/*
 * Continuation lines stay aligned with their open parenthesis when "@fs@"
 * becomes a longer or shorter name: the template is written for a
 * four-letter name.  @depth and @shifts carry the open parentheses (and
 * the shift of the lines inside each) from line to line, @in_comment a
 * comment; @l is re-indented in place if it continues an open one.
 */
struct align {
	int depth;
	int shifts[64];
	bool in_comment;
};

static char *realign(struct align *a, const char *l)
{
	int delta = (int)strlen(fist.fs) - 4, shift = 0, width = 0, names = 0;
	struct buf b = { 0 };
	const char *p = l;
	bool in_string = false;

	if (a->depth > 0 && !a->in_comment) {
		shift = a->shifts[a->depth - 1];
		for (; *p == '\t' || *p == ' '; p++)
			width = *p == '\t' ? (width / 8 + 1) * 8 : width + 1;
		if (*p && shift) {
			width += shift;
			for (int i = 0; i < width / 8; i++)
				buf_str(&b, "\t");
			for (int i = 0; i < width % 8; i++)
				buf_str(&b, " ");
			l = p;
		}
	}
	buf_str(&b, l);

	for (p = l; *p; p++) {
		if (a->in_comment) {
			if (p[0] == '*' && p[1] == '/') {
				a->in_comment = false;
				p++;
			}
			continue;
		}
		if (in_string) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				in_string = false;
			continue;
		}
		if (p[0] == '/' && p[1] == '*') {
			a->in_comment = true;
			p++;
		} else if (p[0] == '/' && p[1] == '/') {
			break;
		} else if (*p == '"') {
			in_string = true;
		} else if (!strncmp(p, "@fs@", 4) || !strncmp(p, "@FS@", 4)) {
			names++;
		} else if (*p == '(' && a->depth < 64) {
			a->shifts[a->depth++] = shift + names * delta;
		} else if (*p == ')' && a->depth > 0) {
			a->depth--;
		}
	}
	return b.s;
}

/* Fills template @name in, into @out. */
static void fill(const char *name, struct buf *out)
{
	char path[4096], *text, *line_s;
	bool stack[16], skipping;
	int depth = 0, call_idx = -1;
	bool in_call = false, replace_call = false;
	struct align align = { 0 };

	snprintf(path, sizeof(path), "%s/%s", templates, name);
	text = read_file(path, NULL);
	if (!text)
		die("%s: %s", path, strerror(errno));
	template_name = path;
	for (line_s = text; *line_s; ) {
		size_t n = strcspn(line_s, "\n");
		char *l = strndup(line_s, n), *t = l + strspn(l, " \t");
		size_t tl = strlen(t);
		char indent[64];

		snprintf(indent, sizeof(indent), "%.*s", (int)(t - l), l);
		line_s += n + (line_s[n] == '\n');
		skipping = false;
		for (int i = 0; i < depth; i++)
			if (!stack[i])
				skipping = true;

		if (tl > 6 && !strncmp(t, "/*@", 3) && !strcmp(t + tl - 3, "@*/")) {
			char *d = strndup(t + 3, tl - 6);

			if (!strncmp(d, "if ", 3)) {
				if (depth == 16)
					die("%s: conditions nested too deep", path);
				stack[depth++] = cond(d + 3);
			} else if (!strcmp(d, "else")) {
				if (!depth)
					die("%s: else without if", path);
				stack[depth - 1] = !stack[depth - 1];
			} else if (!strcmp(d, "endif")) {
				if (!depth)
					die("%s: endif without if", path);
				depth--;
			} else if (skipping) {
				/* nothing */
			} else if (!strncmp(d, "rule ", 5)) {
				char op[32], when[16];
				int idx, w;

				if (sscanf(d + 5, "%31s %15s", op, when) != 2 ||
				    !find_vop(op, &idx))
					die("%s: bad rule marker '%s'", path, d);
				for (w = 0; w < NWHEN && strcmp(when, whens[w]); w++)
					;
				if (w == NWHEN || w == CALL)
					die("%s: bad rule marker '%s'", path, d);
				emit_rule(out, indent, idx, w);
			} else if (!strncmp(d, "call ", 5)) {
				if (!find_vop(d + 5, &call_idx))
					die("%s: bad call marker '%s'", path, d);
				in_call = true;
				replace_call = fist.rules[call_idx][CALL].code;
				if (replace_call)
					emit_rule(out, indent, call_idx, CALL);
			} else if (!strcmp(d, "endcall")) {
				if (!in_call)
					die("%s: endcall without call", path);
				in_call = false;
			} else {
				emit_generated(out, d, indent);
			}
			free(d);
		} else if (!skipping && !(in_call && replace_call)) {
			char *r = realign(&align, l);
			char *s = subst_names(r);

			free(r);

			buf_str(out, s);
			buf_str(out, "\n");
			free(s);
		}
		free(l);
	}
	if (depth || in_call)
		die("%s: an if or call is not closed", path);
	free(text);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) == EOF || fclose(f))
		die("%s: %s", path, strerror(errno));
}

/* The additional C, in fist.c: false if there is none. */
static bool write_extra(const char *dir)
{
	struct buf b = { 0 };

	if (!fist.extra.len || strspn(fist.extra.s, " \t\r\n") == fist.extra.len)
		return false;
	buf_printf(&b, "// SPDX-License-Identifier: GPL-2.0\n/*\n * %s: the additional C of %s, from its line %d.\n */\n\n#include \"%s.h\"\n\n#line %d \"%s\"\n",
		   fist.fs, fist.base, fist.extra_line, fist.fs,
		   fist.extra_line, fist.base);
	buf_str(&b, fist.extra.s);
	write_file(dir, "fist.c", b.s);
	free(b.s);
	return true;
}

/* NAME_ioctl.h, the uapi header of the declared ioctls: both targets'. */
static void write_ioctl_header(const char *dir)
{
	char hname[300], *up = upper(fist.fs);
	struct buf b = { 0 };

	buf_printf(&b, "/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */\n/*\n * %s's ioctls, generated by fistgen from %s.\n */\n#ifndef _UAPI_%s_IOCTL_H\n#define _UAPI_%s_IOCTL_H\n\n#include <linux/ioctl.h>\n#include <linux/types.h>\n\n#define %s_IOC_MAGIC 0xf5\n",
		   fist.fs, fist.base, up, up, up);
	for (int i = 0; i < fist.nioctls; i++) {
		struct ioctl *io = &fist.ioctls[i];
		char *n = upper(io->name);

		buf_printf(&b, "\nstruct %s_%s {\n", fist.fs, io->name);
		emit_code(&b, io->fields, "\t", NULL, "", io->name);
		buf_printf(&b, "};\n\n#define %s_IOC_%s _IOWR(%s_IOC_MAGIC, %d, struct %s_%s)\n",
			   up, n, up, i + 1, fist.fs, io->name);
		free(n);
	}
	buf_printf(&b, "\n#endif /* _UAPI_%s_IOCTL_H */\n", up);
	snprintf(hname, sizeof(hname), "%s_ioctl.h", fist.fs);
	write_file(dir, hname, b.s);
	free(b.s);
	free(up);
}

/* Template @name filled in, as @dir/@as. */
static void write_filled(const char *dir, const char *name, const char *as)
{
	struct buf b = { 0 };

	fill(name, &b);
	write_file(dir, as, b.s);
	free(b.s);
}

/* The module's sources and Kbuild, for "make -C KERNEL M=DIR". */
static void generate_kernel(const char *dir)
{
	static const char *const files[] = { "super.c", "inode.c", "file.c", "data.c" };
	struct buf kbuild = { 0 };
	char hname[300];

	buf_printf(&kbuild, "# Generated by fistgen from %s.\nobj-m := %s.o\n%s-y :=",
		   fist.base, fist.fs, fist.fs);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (!strcmp(files[i], "data.c") && !fist.data)
			continue;
		write_filled(dir, files[i], files[i]);
		buf_printf(&kbuild, " %.*s.o", (int)strlen(files[i]) - 2, files[i]);
	}
	snprintf(hname, sizeof(hname), "%s.h", fist.fs);
	write_filled(dir, "fs.h", hname);
	if (write_extra(dir))
		buf_str(&kbuild, " fist.o");
	buf_str(&kbuild, "\n");
	if (fist.debug)
		buf_str(&kbuild, "ccflags-y := -DDEBUG\n");
	write_file(dir, "Kbuild", kbuild.s);
	free(kbuild.s);
}

/*
 * The daemon's sources and a Makefile: "make -C DIR" builds NAME-fuse
 * against libfuse3, "make -C DIR STATIC=1" a static one.
 */
static void generate_fuse(const char *dir)
{
	char name[300];
	struct buf mk = { 0 };
	bool extra;

	snprintf(name, sizeof(name), "%s.h", fist.fs);
	write_filled(dir, "fuse/fs.h", name);
	snprintf(name, sizeof(name), "%s_fuse.c", fist.fs);
	write_filled(dir, "fuse/main.c", name);
	extra = write_extra(dir);
	snprintf(name, sizeof(name), " %s_ioctl.h", fist.fs);
	buf_printf(&mk, "# Generated by fistgen from %s: the FUSE target.\n"
		   "CFLAGS ?= -O2 -g\n"
		   "FUSE_CFLAGS := $(shell pkg-config --cflags fuse3)\n"
		   "FUSE_LIBS := $(shell pkg-config --libs $(if $(STATIC),--static) fuse3)\n\n"
		   "%s-fuse: %s_fuse.c%s %s.h%s\n"
		   "\t$(CC) $(CFLAGS) -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE $(FUSE_CFLAGS) \\\n"
		   "\t\t$(if $(STATIC),-static) -o $@ %s_fuse.c%s $(LDFLAGS) $(FUSE_LIBS)\n\n"
		   ".PHONY: clean\nclean:\n\trm -f %s-fuse\n",
		   fist.base, fist.fs, fist.fs, extra ? " fist.c" : "", fist.fs,
		   fist.nioctls ? name : "", fist.fs, extra ? " fist.c" : "",
		   fist.fs);
	write_file(dir, "Makefile", mk.s);
	free(mk.s);
}

static void generate(const char *outdir)
{
	char tmp[4096];

	snprintf(tmp, sizeof(tmp), "%s.tmp", outdir);
	if (system(NULL) && access(tmp, F_OK) == 0) {
		char cmd[8300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd))
			die("cannot remove %s", tmp);
	}
	if (mkdir(tmp, 0755))
		die("%s: %s", tmp, strerror(errno));

	if (target == FUSE)
		generate_fuse(tmp);
	else
		generate_kernel(tmp);
	if (fist.nioctls)
		write_ioctl_header(tmp);

	for (int i = 0; i <= (int)NVOPS; i++)
		for (int w = 0; w < NWHEN; w++)
			if (fist.rules[i][w].code && !fist.rules[i][w].emitted)
				die("the templates have no place for the %s:%s rule",
				    i == NVOPS ? "all" : vops[i].name, whens[w]);

	{
		char cmd[8300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", outdir);
		if (access(outdir, F_OK) == 0 && system(cmd))
			die("cannot remove %s", outdir);
	}
	if (rename(tmp, outdir))
		die("%s: %s", outdir, strerror(errno));
}

static void usage(void)
{
	fprintf(stderr, "usage: fistgen [-T kernel|fuse] [-t TEMPLATEDIR] -o OUTDIR NAME.fist\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *outdir = NULL, *base, *dot;
	int opt;

	while ((opt = getopt(argc, argv, "T:t:o:")) != -1) {
		if (opt == 'T' && !strcmp(optarg, "kernel"))
			target = KERNEL;
		else if (opt == 'T' && !strcmp(optarg, "fuse"))
			target = FUSE;
		else if (opt == 't')
			templates = optarg;
		else if (opt == 'o')
			outdir = optarg;
		else
			usage();
	}
	if (optind + 1 != argc || !outdir)
		usage();
	fist.file = argv[optind];
	src = read_file(fist.file, &srclen);
	if (!src) {
		fprintf(stderr, "fistgen: %s: %s\n", fist.file, strerror(errno));
		return 2;
	}

	base = strrchr(fist.file, '/');
	base = base ? base + 1 : fist.file;
	fist.base = base;
	dot = strrchr(base, '.');
	if (!dot || strcmp(dot, ".fist")) {
		fprintf(stderr, "fistgen: %s: the description's name ends in .fist\n",
			fist.file);
		return 2;
	}
	fist.fs = strndup(base, dot - base);
	if (!valid_ident(fist.fs) || strlen(fist.fs) > 40 ||
	    strcspn(fist.fs, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != strlen(fist.fs))
		error(1, 1, "the file system's name, '%s', is its file's: lower case letters, digits and '_', 40 at most",
		      fist.fs);

	parse();
	if (!fist.errors)
		check();
	if (fist.errors) {
		fprintf(stderr, "%s: %d error%s; nothing generated\n", fist.file,
			fist.errors, fist.errors > 1 ? "s" : "");
		return 1;
	}
	generate(outdir);
	return 0;
}
