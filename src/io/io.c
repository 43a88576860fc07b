/* io.c - the input half of the input and output layer (io.h; out.c is
 * the output half): buffered input with transparent gzip.  Inputs are
 * consumed in chunks (256 KiB; a plain regular file's mapped windows, 2
 * MiB, below); nothing reads a whole file.
 *
 * Gzip input is inflated on a thread of its own from its second chunk on
 * (the first, which sniffing and tf_file_head read, costs no thread): the
 * inflater fills a ring of GZ_RING chunks while the reader parses the one
 * it holds, so a .gz costs about what its plain bytes cost on a second
 * core instead of plain + inflate on one (docs/performance.md).  Errors
 * and the end of the data come through the ring in order.  The inflater
 * inflates what each read gives (a pipe's bytes as they come), and waits
 * for input in poll a tenth of a second at a time, so that a reader that
 * stops early (a parse error) is not held at close by a pipe that never
 * ends (tests/e2e/inflate.sh).
 *
 * The inflater is ISA-L's igzip where it was found at build time
 * (TF_HAVE_ISAL: the Makefile asks pkg-config for libisal), about 2.5x
 * zlib's speed on trace JSON; zlib otherwise.  Both read concatenated
 * members, check each member's CRC, and stop the same way at a cut. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <poll.h>
#include <pthread.h>
#include <zlib.h>
#ifdef TF_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif
#include "tracefold/io.h"
#include "tracefold/progress.h"

#define RAW_BYTES (256u * 1024u)
#define GZ_RING 4
/* A plain regular file past its first chunk is read through a window of
 * the page cache mapped into memory, MAP_WINDOW bytes at a time, instead
 * of copied by read(2): the kernel's copy was 5% of a Chrome profile's
 * time and 40% of a TAU one's (docs/performance.md "Input through mapped
 * windows").  A window is a few MiB of resident file pages, unmapped
 * before the next: memory stays bounded. */
#define MAP_WINDOW (2u * 1024u * 1024u)

/* The inflater thread and its ring of chunks: slots head .. head+count-1
 * are filled (the reader holds slot head while it parses it); the
 * inflater fills slot head+count while count < GZ_RING. */
typedef struct gz_ring {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned char *slot[GZ_RING];
	size_t len[GZ_RING];
	int head, count;
	bool holding;           /* the reader holds slot head */
	bool done, stop;        /* the inflater finished (end or error); asked to stop */
	int rc;                 /* its end: 0, or a negative TF_E* with err */
	tf_error err;
} gz_ring;

struct tf_in {
	int fd;
	bool own_fd, gzip, raw_eof, z_end;
	bool truncated;         /* the gzip data ended before its end marker */
#ifdef TF_HAVE_ISAL
	struct inflate_state *z;
#else
	z_stream z;
#endif
	unsigned char *raw;     /* compressed bytes (gzip) */
	size_t raw_len;
	unsigned char *buf;     /* decompressed (or plain) bytes */
	size_t pos, len;
	uint64_t offset;        /* decompressed bytes handed out */
	uint64_t produced;      /* decompressed bytes inflated (the inflater's) */
	gz_ring *ring;          /* the inflater thread, once started */
	unsigned char *buf0;    /* in->buf before the ring's slots took its place */
	unsigned char *own_buf; /* plain: the malloc'd buffer, while in->buf is a window */
	void *win;              /* the mapped window (plain regular files), or NULL */
	size_t win_len;
	bool mappable;          /* a plain regular file, mapping not turned off */
	uint64_t file_off;      /* plain: bytes of the file consumed into buffers */
	int64_t file_size;
	char path[512];
};

/* Off unless the program turned it on (tf_in_map_inputs): one that maps
 * must also deal with the SIGBUS of a file cut short while it is read. */
static bool map_inputs;

void tf_in_map_inputs(bool on) { map_inputs = on; }

static ptrdiff_t read_full(int fd, unsigned char *p, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, p + got, n - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	tf_progress_add_bytes(got);
	return (ptrdiff_t)got;
}

/* Is fd readable (or at its end, or failed: read says which) within a
 * tenth of a second? */
static bool readable(int fd)
{
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	int r = poll(&pf, 1, 100);
	return r != 0 && !(r < 0 && errno == EINTR);
}

/* What one read gives (compressed bytes: inflate takes any amount, so a
 * pipe's bytes are inflated as they come instead of once 256 KiB are
 * there); 0 at the end. */
static ptrdiff_t read_some(int fd, unsigned char *p, size_t n)
{
	for (;;) {
		ssize_t r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r > 0)
			tf_progress_add_bytes((uint64_t)r);
		return r;
	}
}

int tf_in_open(tf_in **out, const char *path, tf_error *err)
{
	*out = NULL;
	tf_in *in = calloc(1, sizeof(*in));
	if (!in)
		return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
	snprintf(in->path, sizeof(in->path), "%s", path);
	in->file_size = -1;
	if (strcmp(path, "-") == 0) {
		in->fd = 0;
	} else {
		in->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (in->fd < 0) {
			int rc = tf_error_set(err, TF_EIO, path, -1, -1, "cannot open");
			free(in);
			return rc;
		}
		in->own_fd = true;
		struct stat sb;
		if (fstat(in->fd, &sb) == 0) {
			if (S_ISDIR(sb.st_mode)) {
				close(in->fd);
				free(in);
				errno = EISDIR;
				return tf_error_set(err, TF_EIO, path, -1, -1, "cannot open as a file");
			}
			in->file_size = sb.st_size;
		}
	}
	in->buf = malloc(RAW_BYTES);
	in->raw = malloc(RAW_BYTES);
	if (!in->buf || !in->raw) {
		tf_in_close(in);
		return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
	}
	ptrdiff_t n = read_full(in->fd, in->raw, RAW_BYTES);
	if (n < 0) {
		tf_in_close(in);
		return tf_error_set(err, TF_EIO, path, 0, -1, "read failed");
	}
	in->raw_len = (size_t)n;
	if ((size_t)n < RAW_BYTES)
		in->raw_eof = true;
	if (n >= 2 && in->raw[0] == 0x1f && in->raw[1] == 0x8b) {
		in->gzip = true;
#ifdef TF_HAVE_ISAL
		if (!(in->z = malloc(sizeof(*in->z)))) {
			tf_in_close(in);
			return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
		}
		isal_inflate_init(in->z);
		in->z->crc_flag = ISAL_GZIP;
		in->z->next_in = in->raw;
		in->z->avail_in = (uint32_t)in->raw_len;
#else
		if (inflateInit2(&in->z, 15 + 16) != Z_OK) {
			tf_in_close(in);
			return tf_error_set(err, TF_ENOMEM, path, -1, -1, "zlib init failed");
		}
		in->z.next_in = in->raw;
		in->z.avail_in = (uInt)in->raw_len;
#endif
	} else {
		/* plain: the raw buffer is the data */
		unsigned char *t = in->buf;
		in->buf = in->raw;
		in->raw = t;
		in->len = in->raw_len;
		in->raw_len = 0;
		in->own_buf = in->buf;
		in->file_off = (uint64_t)n;
		struct stat sb;
		in->mappable = map_inputs && in->own_fd && !in->raw_eof && fstat(in->fd, &sb) == 0 &&
			       S_ISREG(sb.st_mode);
	}
	*out = in;
	return 0;
}

static void ring_stop(tf_in *in);

void tf_in_close(tf_in *in)
{
	if (!in)
		return;
	ring_stop(in);
#ifdef TF_HAVE_ISAL
	free(in->z);
#else
	if (in->gzip)
		inflateEnd(&in->z);
#endif
	if (in->own_fd)
		close(in->fd);
	if (in->win)
		munmap(in->win, in->win_len);
	free(in->own_buf ? in->own_buf : in->buf);
	free(in->raw);
	free(in);
}

#ifdef TF_HAVE_ISAL
static const char *isal_error(int r)
{
	switch (r) {
	case ISAL_INVALID_BLOCK: return "invalid block";
	case ISAL_INVALID_SYMBOL: return "invalid code";
	case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
	case ISAL_INVALID_WRAPPER: return "incorrect header";
	case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
	case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
	default: return "inflate failed";
	}
}
#endif

/* Inflates the next bytes into out (cap bytes): sets *len (> 0), or 0 at
 * the end (in->truncated says whether the data was cut); negative on
 * error.  Uses in->z, in->raw and in->fd: the inflater's alone once the
 * thread runs. */
static int inflate_into(tf_in *in, unsigned char *out, size_t cap, size_t *len, tf_error *err)
{
#ifdef TF_HAVE_ISAL
	struct inflate_state *z = in->z;
#define AVAIL_IN z->avail_in
#else
	z_stream *z = &in->z;
#define AVAIL_IN z->avail_in
#endif
	*len = 0;
	while (*len == 0) {
		if (AVAIL_IN == 0) {
			if (in->raw_eof) {
				/* a cut .gz (killed writer, partial download): what
				 * was decompressed is delivered, then the end; the
				 * reader decides (tf_in_truncated) */
				in->truncated = !in->z_end;
				return 0;
			}
			/* on the inflater thread a read waits in poll, a tenth of a
			 * second at a time, so that ring_stop is not held by a pipe
			 * that never ends (a parse error, ESTOP) */
			while (in->ring && !readable(in->fd))
				if (__atomic_load_n(&in->ring->stop, __ATOMIC_ACQUIRE))
					return 0;
			ptrdiff_t n = read_some(in->fd, in->raw, RAW_BYTES);
			if (n < 0)
				return tf_error_set(err, TF_EIO, in->path, (int64_t)in->produced, -1, "read failed");
			if (n == 0)
				in->raw_eof = true;
			z->next_in = in->raw;
			AVAIL_IN = (uint32_t)n;
			if (n == 0)
				continue;
		}
#ifdef TF_HAVE_ISAL
		if (in->z_end) { /* another gzip member follows (concatenated .gz) */
			uint8_t *next = z->next_in;
			uint32_t avail = z->avail_in;
			isal_inflate_reset(z);
			z->crc_flag = ISAL_GZIP;
			z->next_in = next;
			z->avail_in = avail;
			in->z_end = false;
		}
		z->next_out = out;
		z->avail_out = (uint32_t)cap;
		int zr = isal_inflate(z);
		*len = cap - z->avail_out;
		if (zr < 0)
			return tf_error_set(err, TF_EFORMAT, in->path, (int64_t)(in->produced + *len), -1,
					    "corrupt gzip data (%s)", isal_error(zr));
		if (z->block_state == ISAL_BLOCK_FINISH)
			in->z_end = true;
#else
		if (in->z_end) {
			/* another gzip member follows (concatenated .gz) */
			if (inflateReset(z) != Z_OK)
				return tf_error_set(err, TF_EFORMAT, in->path, (int64_t)in->produced, -1, "zlib reset failed");
			in->z_end = false;
		}
		z->next_out = out;
		z->avail_out = (uInt)cap;
		int zr = inflate(z, Z_NO_FLUSH);
		*len = cap - z->avail_out;
		if (zr == Z_STREAM_END)
			in->z_end = true;
		else if (zr != Z_OK && zr != Z_BUF_ERROR)
			return tf_error_set(err, TF_EFORMAT, in->path, (int64_t)(in->produced + *len), -1,
					    "corrupt gzip data (%s)", z->msg ? z->msg : "inflate failed");
#endif
		in->produced += *len;
	}
	return 0;
#undef AVAIL_IN
}

/* Which inflater this build uses (tracefold --version). */
const char *tf_inflater(void)
{
#ifdef TF_HAVE_ISAL
	return "ISA-L igzip " TF_ISAL_VERSION;
#else
	return "zlib " ZLIB_VERSION;
#endif
}

static void *inflater(void *arg)
{
	tf_in *in = arg;
	gz_ring *g = in->ring;
	for (;;) {
		pthread_mutex_lock(&g->mu);
		while (g->count == GZ_RING && !g->stop)
			pthread_cond_wait(&g->cv, &g->mu);
		int k = (g->head + g->count) % GZ_RING;
		bool stop = g->stop;
		pthread_mutex_unlock(&g->mu);
		if (stop)
			return NULL;
		size_t len = 0;
		tf_error err;
		tf_error_clear(&err);
		int rc = inflate_into(in, g->slot[k], RAW_BYTES, &len, &err);
		pthread_mutex_lock(&g->mu);
		if (rc < 0 || len == 0) {
			g->rc = rc;
			g->err = err;
			g->done = true;
		} else {
			g->len[k] = len;
			g->count++;
		}
		pthread_cond_broadcast(&g->cv);
		bool end = g->done;
		pthread_mutex_unlock(&g->mu);
		if (end)
			return NULL;
	}
}

/* Starts the inflater; false if it cannot (then inflating goes on here). */
static bool ring_start(tf_in *in)
{
	gz_ring *g = calloc(1, sizeof(*g));
	if (!g)
		return false;
	for (int i = 0; i < GZ_RING; i++)
		if (!(g->slot[i] = malloc(RAW_BYTES)))
			goto fail;
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	in->ring = g;
	in->buf0 = in->buf;
	if (pthread_create(&g->th, NULL, inflater, in) == 0)
		return true;
	in->ring = NULL;
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
fail:
	for (int i = 0; i < GZ_RING; i++)
		free(g->slot[i]);
	free(g);
	return false;
}

static void ring_stop(tf_in *in)
{
	gz_ring *g = in->ring;
	if (!g)
		return;
	pthread_mutex_lock(&g->mu);
	__atomic_store_n(&g->stop, true, __ATOMIC_RELEASE); /* read without the lock in inflate_into */
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	pthread_join(g->th, NULL); /* within a tenth of a second: see inflate_into */
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	for (int i = 0; i < GZ_RING; i++)
		free(g->slot[i]);
	free(g);
	in->ring = NULL;
	in->buf = in->buf0;
}

/* The next chunk from the inflater into in->buf / in->len. */
static ptrdiff_t ring_next(tf_in *in, tf_error *err)
{
	gz_ring *g = in->ring;
	pthread_mutex_lock(&g->mu);
	if (g->holding) { /* the chunk parsed last goes back to the inflater */
		g->head = (g->head + 1) % GZ_RING;
		g->count--;
		g->holding = false;
		pthread_cond_broadcast(&g->cv);
	}
	while (g->count == 0 && !g->done)
		pthread_cond_wait(&g->cv, &g->mu);
	ptrdiff_t n;
	if (g->count > 0) {
		in->buf = g->slot[g->head];
		in->len = g->len[g->head];
		g->holding = true;
		n = (ptrdiff_t)in->len;
	} else {
		n = g->rc;
		if (n < 0 && err)
			*err = g->err;
	}
	pthread_mutex_unlock(&g->mu);
	return n;
}

/* Refills in->buf (in->pos == in->len on entry).  Returns bytes now
 * available, 0 at end, negative on error. */
/* The next window of a plain regular file mapped (the one before
 * unmapped), up to the file's size now; -1: none could be mapped, or the
 * size says there is nothing past file_off (read(2) takes over from the
 * same place: only its 0 is the end, since a file can hold more than its
 * size says: procfs, some FUSE and network file systems). */
static ptrdiff_t map_next(tf_in *in)
{
	if (in->win) {
		munmap(in->win, in->win_len);
		in->win = NULL;
		in->buf = in->own_buf;
	}
	struct stat sb;
	if (fstat(in->fd, &sb) != 0)
		return -1;
	if ((uint64_t)sb.st_size <= in->file_off)
		return -1;
	uint64_t left = (uint64_t)sb.st_size - in->file_off;
	size_t len = left < MAP_WINDOW ? (size_t)left : MAP_WINDOW;
	/* file_off is a multiple of RAW_BYTES, and so of the page size */
	void *w = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, in->fd, (off_t)in->file_off);
	if (w == MAP_FAILED)
		return -1;
	in->win = w;
	in->win_len = len;
	in->buf = w;
	in->file_off += len;
	tf_progress_add_bytes(len);
	return (ptrdiff_t)len;
}

static ptrdiff_t refill(tf_in *in, tf_error *err)
{
	in->pos = in->len = 0;
	if (!in->gzip) {
		if (in->raw_eof)
			return 0;
		if (in->mappable) {
			ptrdiff_t m = map_next(in);
			if (m > 0) {
				in->len = (size_t)m;
				return m;
			}
			in->mappable = false; /* read(2) from here on */
			if (lseek(in->fd, (off_t)in->file_off, SEEK_SET) < 0)
				return tf_error_set(err, TF_EIO, in->path, (int64_t)in->offset, -1, "read failed");
		}
		ptrdiff_t n = read_full(in->fd, in->buf, RAW_BYTES);
		if (n < 0)
			return tf_error_set(err, TF_EIO, in->path, (int64_t)in->offset, -1, "read failed");
		if ((size_t)n < RAW_BYTES)
			in->raw_eof = true;
		in->file_off += (uint64_t)n;
		in->len = (size_t)n;
		return n;
	}
	if (in->ring)
		return ring_next(in, err);
	/* the first chunk here; the others from the inflater thread */
	if (in->produced > 0 && ring_start(in))
		return ring_next(in, err);
	size_t len;
	int rc = inflate_into(in, in->buf, RAW_BYTES, &len, err);
	if (rc < 0)
		return rc;
	in->len = len;
	return (ptrdiff_t)len;
}

ptrdiff_t tf_in_chunk(tf_in *in, const unsigned char **data, tf_error *err)
{
	if (in->pos == in->len) {
		ptrdiff_t n = refill(in, err);
		if (n <= 0)
			return n;
	}
	*data = in->buf + in->pos;
	size_t n = in->len - in->pos;
	in->pos = in->len;
	in->offset += n;
	return (ptrdiff_t)n;
}

const unsigned char *tf_in_take_window(tf_in *in, size_t *len)
{
	if (!in->win || in->pos != in->len) /* not a window, or not all of it handed out */
		return NULL;
	const unsigned char *w = in->win;
	*len = in->win_len;
	in->win = NULL;
	in->buf = in->own_buf;
	in->pos = in->len = 0;
	return w;
}

void tf_in_window_free(const unsigned char *base, size_t len)
{
	if (base)
		munmap((void *)base, len);
}

ptrdiff_t tf_in_read(tf_in *in, void *buf, size_t n, tf_error *err)
{
	size_t got = 0;
	while (got < n) {
		if (in->pos == in->len) {
			ptrdiff_t r = refill(in, err);
			if (r < 0)
				return r;
			if (r == 0)
				break;
		}
		size_t k = in->len - in->pos;
		if (k > n - got)
			k = n - got;
		memcpy((char *)buf + got, in->buf + in->pos, k);
		in->pos += k;
		got += k;
		in->offset += k;
	}
	return (ptrdiff_t)got;
}

ptrdiff_t tf_in_peek(tf_in *in, const void **data, size_t n, tf_error *err)
{
	/* Only valid before anything was consumed: the first refill holds at
	 * least min(n, file) bytes for plain files; for gzip, inflate once. */
	if (in->offset != 0)
		return tf_error_set(err, TF_EUSAGE, in->path, -1, -1, "peek after read");
	if (in->pos == in->len) {
		ptrdiff_t r = refill(in, err);
		if (r < 0)
			return r;
	}
	*data = in->buf + in->pos;
	size_t k = in->len - in->pos;
	return (ptrdiff_t)(k < n ? k : n);
}

bool tf_in_is_gzip(const tf_in *in) { return in->gzip; }
bool tf_in_truncated(const tf_in *in) { return in->truncated; }
uint64_t tf_in_offset(const tf_in *in) { return in->offset; }
const char *tf_in_path(const tf_in *in) { return in->path; }
int64_t tf_in_file_size(const tf_in *in) { return in->file_size; }

ptrdiff_t tf_file_head_whole(const char *path, void *buf, size_t n, bool *whole, tf_error *err)
{
	tf_in *in;
	int rc = tf_in_open(&in, path, err);
	if (rc < 0)
		return rc;
	tf_error local;
	tf_error_clear(&local);
	ptrdiff_t got = tf_in_read(in, buf, n, &local);
	if (whole)
		*whole = got >= 0 && (size_t)got < n && !tf_in_truncated(in);
	tf_in_close(in);
	if (got < 0 && err)
		*err = local;
	return got;
}

ptrdiff_t tf_file_head(const char *path, void *buf, size_t n, tf_error *err)
{
	return tf_file_head_whole(path, buf, n, NULL, err);
}
