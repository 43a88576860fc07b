/* diff.c - placeholder: `tracefold diff` is being written (see the open issues). */
#include "cmd.h"

int tf_cmd_diff(int argc, char **argv)
{
	tf_msg("'diff' is not implemented yet");
	return TF_EXIT_USAGE;
}
