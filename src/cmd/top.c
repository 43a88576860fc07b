/* top.c - placeholder: `tracefold top` is being written (see the open issues). */
#include "cmd.h"

int tf_cmd_top(int argc, char **argv)
{
	tf_msg("'top' is not implemented yet");
	return TF_EXIT_USAGE;
}
