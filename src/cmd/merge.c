/* merge.c - placeholder: `tracefold merge` is being written (see the open issues). */
#include "cmd.h"

int tf_cmd_merge(int argc, char **argv)
{
	tf_msg("'merge' is not implemented yet");
	return TF_EXIT_USAGE;
}
