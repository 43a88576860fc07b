/* profile.c - placeholder until the core lands. */
#include "cmd.h"
int tf_cmd_profile(int argc, char **argv)
{
	tf_msg("'profile' is not implemented yet");
	return TF_EXIT_USAGE;
}
