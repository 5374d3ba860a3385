"""The learner's Ascend environment: CANN install inspection, version compatibility, the CANN stack, shell
sessions (set_env.sh, venv), visible devices and the doctor that checks them all."""
