/* info.c - placeholder: `tracefold info` is being written (see the open issues). */
#include "cmd.h"

int tf_cmd_info(int argc, char **argv)
{
	tf_msg("'info' is not implemented yet");
	return TF_EXIT_USAGE;
}
