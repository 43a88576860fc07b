/* mpi.c - `--mpi`: a distributed run (include/tracefold/dist.h,
 * docs/distributed.md) with MPI as its transport.
 *
 * Only tracefold-mpi (make MPI=1, built with mpicc and -DTF_MPI) has it;
 * plain tracefold has no MPI dependency and says how to get it.  MPI is
 * started on the first use (so tracefold-mpi without --mpi is an ordinary
 * tracefold) and ended by tf_mpi_end, from main, where every process
 * agrees on one exit status (the highest): a run fails on every process or
 * on none.
 *
 * A process that fails tells the others at once with a small message
 * (tag FAIL) to each; they look for it (MPI_Test) between the parts they
 * read, stop, and every process then takes the same collective path out
 * (dist.c), so the run ends in about the time of one part, never hangs.  A
 * process that dies instead (a crash, a kill) is ended by mpirun, which ends
 * the others. */
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "tracefold/dist.h"

int tf_mpi; /* --mpi was given */

#ifdef TF_MPI
#include <mpi.h>

enum { TAG_FAIL = 7701, TAG_SIZE = 7702, TAG_DATA = 7703 };
/* MPI counts are ints: long messages go in chunks */
#define CHUNK ((size_t)1 << 30)

static struct {
	bool started, ended;
	tf_comm c;
	MPI_Request fail_rx;    /* the posted receive of a FAIL message */
	int fail_buf;
	bool fail_seen;         /* fail_rx completed */
	bool i_failed;
	MPI_Request *fail_tx;   /* our FAIL messages to the others */
	int nfail_tx;
} M;

static int mpi_bcast(tf_comm *c, void *buf, size_t len, int root)
{
	for (size_t off = 0; off < len; off += CHUNK) {
		size_t k = len - off < CHUNK ? len - off : CHUNK;
		if (MPI_Bcast((char *)buf + off, (int)k, MPI_BYTE, root, MPI_COMM_WORLD) != MPI_SUCCESS)
			return TF_EIO;
	}
	return 0;
}

static int mpi_max(tf_comm *c, int64_t *v, int n)
{
	return MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : TF_EIO;
}

static int mpi_send(tf_comm *c, const void *buf, size_t len, int dest)
{
	uint64_t n = len;
	if (MPI_Send(&n, 1, MPI_UINT64_T, dest, TAG_SIZE, MPI_COMM_WORLD) != MPI_SUCCESS)
		return TF_EIO;
	for (size_t off = 0; off < len; off += CHUNK) {
		size_t k = len - off < CHUNK ? len - off : CHUNK;
		if (MPI_Send((const char *)buf + off, (int)k, MPI_BYTE, dest, TAG_DATA, MPI_COMM_WORLD) != MPI_SUCCESS)
			return TF_EIO;
	}
	return 0;
}

static int mpi_recv(tf_comm *c, void **buf, size_t *len, int src)
{
	uint64_t n = 0;
	*buf = NULL;
	*len = 0;
	if (MPI_Recv(&n, 1, MPI_UINT64_T, src, TAG_SIZE, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS)
		return TF_EIO;
	char *p = malloc(n ? n : 1);
	if (!p) { /* the sender would wait for it */
		tf_msg("[process %d of %d] out of memory receiving %llu bytes", c->rank, c->size, (unsigned long long)n);
		MPI_Abort(MPI_COMM_WORLD, TF_EXIT_INPUT);
	}
	for (size_t off = 0; off < n; off += CHUNK) {
		size_t k = n - off < CHUNK ? n - off : CHUNK;
		if (MPI_Recv(p + off, (int)k, MPI_BYTE, src, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
		    MPI_SUCCESS) {
			free(p);
			return TF_EIO;
		}
	}
	*buf = p;
	*len = n;
	return 0;
}

static void mpi_fail(tf_comm *c)
{
	if (M.i_failed || c->size < 2)
		return;
	M.i_failed = true;
	M.fail_tx = calloc((size_t)c->size, sizeof(MPI_Request));
	if (!M.fail_tx) /* tf_mpi_end would wait for FAIL messages never sent */
		MPI_Abort(MPI_COMM_WORLD, TF_EXIT_INPUT);
	static int one = 1;
	for (int r = 0; r < c->size; r++)
		if (r != c->rank)
			MPI_Isend(&one, 1, MPI_INT, r, TAG_FAIL, MPI_COMM_WORLD, &M.fail_tx[M.nfail_tx++]);
}

static void mpi_abort(tf_comm *c)
{
	tf_msg("[process %d of %d] out of memory", c->rank, c->size);
	MPI_Abort(MPI_COMM_WORLD, TF_EXIT_INPUT);
	abort();
}

static bool mpi_failed(tf_comm *c)
{
	if (!M.fail_seen) {
		int flag = 0;
		MPI_Test(&M.fail_rx, &flag, MPI_STATUS_IGNORE);
		M.fail_seen = flag != 0;
	}
	return M.fail_seen;
}

/* Starts MPI once; TF_EXIT_OK or an exit status (said). */
static int start(void)
{
	if (M.started)
		return TF_EXIT_OK;
	int init = 0;
	MPI_Initialized(&init);
	if (!init && MPI_Init(NULL, NULL) != MPI_SUCCESS) {
		tf_msg("--mpi: MPI_Init failed");
		return TF_EXIT_INPUT;
	}
	M.started = true;
	M.c = (tf_comm){ 0, 1, mpi_bcast, mpi_max, mpi_send, mpi_recv, mpi_fail, mpi_failed, mpi_abort, NULL, 0 };
	MPI_Comm_rank(MPI_COMM_WORLD, &M.c.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &M.c.size);
	MPI_Irecv(&M.fail_buf, 1, MPI_INT, MPI_ANY_SOURCE, TAG_FAIL, MPI_COMM_WORLD, &M.fail_rx);
	return TF_EXIT_OK;
}

int tf_mpi_start(int *rank, int *size)
{
	int rc = start();
	*rank = M.c.rank;
	*size = M.c.size;
	return rc;
}

int tf_mpi_load(tf_ctx *ctx, tf_agg *agg, const char *const *inputs, int n, const tf_load_opts *o)
{
	int rc = start();
	if (rc != TF_EXIT_OK)
		return rc;
	tf_error err;
	tf_error_clear(&err);
	tf_dist_stats st;
	int r = tf_dist_run(&M.c, ctx, agg, inputs, n, o, &st, &err);
	if (tf_verbose && r >= 0)
		tf_msg("[process %d of %d] read %u parts (%.1f MB) in %.3f s; reduction %.3f s (sent %.1f kB, received "
		       "%.1f kB)%s", M.c.rank, M.c.size, st.parts, (double)st.bytes / 1e6, st.read_s, st.reduce_s,
		       (double)st.sent / 1e3, (double)st.received / 1e3, r == 0 ? "; concluded" : "");
	if (M.c.rank == 0)
		tf_print_warnings(ctx); /* the whole run's */
	if (r == 1)
		return TF_EXIT_WORKER;
	if (r == TF_ECANCEL || (r < 0 && !err.code)) /* the process that failed said why */
		return r == TF_EUSAGE ? TF_EXIT_USAGE : TF_EXIT_INPUT;
	if (r < 0) {
		if (!err.code)
			tf_error_set(&err, r, NULL, -1, -1, "%s", tf_strerror(r));
		if (M.c.size < 2)
			return tf_report(&err);
		char buf[1400];
		tf_error_format(&err, buf, sizeof(buf));
		tf_msg("[process %d of %d] %s", M.c.rank, M.c.size, buf);
		return err.code == TF_EUSAGE ? TF_EXIT_USAGE : TF_EXIT_INPUT;
	}
	return TF_EXIT_OK;
}

int tf_mpi_agree(int rc)
{
	if (!M.started)
		return rc;
	int64_t v = rc == TF_EXIT_WORKER ? TF_EXIT_OK : rc;
	if (MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
		return TF_EXIT_INPUT;
	return (int)v;
}

int tf_mpi_bcast_text(char *buf, size_t len)
{
	if (!M.started)
		return TF_EXIT_OK;
	if (mpi_bcast(&M.c, buf, len, 0) < 0) {
		tf_msg("[process %d of %d] --mpi: MPI_Bcast failed", M.c.rank, M.c.size);
		return TF_EXIT_INPUT;
	}
	buf[len - 1] = '\0';
	return TF_EXIT_OK;
}

const char *tf_mpi_build(void)
{
	static char v[MPI_MAX_LIBRARY_VERSION_STRING + 32];
	char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
	int n = 0;
	MPI_Get_library_version(lib, &n); /* allowed before MPI_Init */
	lib[strcspn(lib, ",\n")] = 0;
	snprintf(v, sizeof(v), "--mpi with %s", lib);
	return v;
}

int tf_mpi_end(int rc)
{
	if (!M.started || M.ended)
		return rc == TF_EXIT_WORKER ? TF_EXIT_OK : rc;
	M.ended = true;
	int64_t v = rc == TF_EXIT_WORKER ? TF_EXIT_OK : rc;
	int64_t nfail = M.i_failed;
	MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
	MPI_Allreduce(MPI_IN_PLACE, &nfail, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
	/* every FAIL message sent is received before MPI ends: nfail - (ours)
	 * are addressed to this process */
	int64_t expect = nfail - (M.i_failed ? 1 : 0);
	if (expect > 0) {
		MPI_Wait(&M.fail_rx, MPI_STATUS_IGNORE);
		for (int64_t k = 1; k < expect; k++) {
			int x;
			MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, TAG_FAIL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		}
	} else {
		MPI_Cancel(&M.fail_rx);
		MPI_Wait(&M.fail_rx, MPI_STATUS_IGNORE);
	}
	if (M.nfail_tx)
		MPI_Waitall(M.nfail_tx, M.fail_tx, MPI_STATUSES_IGNORE);
	free(M.fail_tx);
	MPI_Finalize();
	return (int)v;
}

#else /* plain tracefold */

static int no_mpi(void)
{
	tf_msg("--mpi: this tracefold is built without MPI; build tracefold-mpi with 'make MPI=1' "
	       "(OpenMPI: libopenmpi-dev) and run it under mpirun or srun (docs/distributed.md)");
	return TF_EXIT_USAGE;
}

int tf_mpi_start(int *rank, int *size)
{
	*rank = 0;
	*size = 1;
	return no_mpi();
}

int tf_mpi_load(tf_ctx *ctx, tf_agg *agg, const char *const *inputs, int n, const tf_load_opts *o)
{
	return no_mpi();
}

int tf_mpi_end(int rc) { return rc == TF_EXIT_WORKER ? TF_EXIT_OK : rc; }

int tf_mpi_agree(int rc) { return rc; }

int tf_mpi_bcast_text(char *buf, size_t len) { (void)buf, (void)len; return TF_EXIT_OK; }

const char *tf_mpi_build(void) { return NULL; }

#endif
