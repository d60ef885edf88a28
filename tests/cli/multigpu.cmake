# --devices (several GPUs of one host; docs/cli.md, "Several GPUs"): the refusals, and the
# workers' plumbing on device indices no machine here has. --test-devices-present pretends the
# host has that many GPUs, so these run the same with a GPU, without one and without CUDA: the
# workers for devices 61 to 63 start (one process each, at once) and each fails on its device.
set(small --shape 10x20x5)
slicescope_cli_test(run_devices_and_device EXIT 2
    STDERR "--devices and --device cannot be given together"
    ARGS run --devices all --device 0 ${small} --strategy slice-2d -o @WORK@/t.json)
slicescope_cli_test(sweep_devices_and_preset EXIT 2
    STDERR "--devices and --device cannot be given together"
    ARGS sweep --param block --values 32,64 --devices all --device h200 ${small} --strategy slice-2d -o @WORK@/s.json)
slicescope_cli_test(run_devices_unknown EXIT 2
    STDERR "--devices: there is no CUDA device 5; this machine has 2 CUDA devices \\(indices 0 to 1\\)"
    ARGS run --devices 0,5 --test-devices-present 2 ${small} --strategy slice-2d -o @WORK@/t.json)
slicescope_cli_test(run_devices_twice EXIT 2 STDERR "--devices: device 1 is named twice"
    ARGS run --devices 1,0,1 --test-devices-present 2 ${small} --strategy slice-2d -o @WORK@/t.json)
slicescope_cli_test(sweep_devices_not_an_index EXIT 2
    STDERR "--devices: 'gpu1' is not a CUDA device index"
    ARGS sweep --param block --values 32,64 --devices gpu1 --test-devices-present 2 ${small} --strategy slice-2d -o @WORK@/s.json)
slicescope_cli_test(run_devices_no_gpu EXIT 1
    STDERR "--devices all: no GPU found on this machine, so there is nothing to spread the runs over"
    ARGS run --devices all --test-devices-present 0 ${small} --strategy slice-2d -o @WORK@/t.json)
slicescope_cli_test(sweep_devices_no_gpu EXIT 1
    STDERR "--devices 0,1: no GPU found on this machine"
    ARGS sweep --param block --values 32,64 --devices 0,1 --test-devices-present 0 ${small} --strategy slice-2d -o @WORK@/s.json)
slicescope_cli_test(run_devices_cpu_only EXIT 2 STDERR "--devices needs a GPU strategy"
    ARGS run --devices all ${small} --strategy cpu-serial -o @WORK@/t.json)
slicescope_cli_test(sweep_devices_cpu_only EXIT 2 STDERR "--devices needs a measured GPU strategy"
    ARGS sweep --param work --values 1,2 --devices all ${small} --strategy cpu-serial -o @WORK@/s.json)
slicescope_cli_test(sweep_devices_slurm EXIT 2 STDERR "--devices spreads a sweep over the GPUs of this host"
    ARGS sweep --param block --values 32,64 --devices all --launcher slurm ${small} --strategy slice-2d -o @WORK@/s.json)
# run: one worker a device, every GPU strategy on each; the errors name the device; the CPU
# strategy runs once and is written.
slicescope_cli_test(run_devices_workers EXIT 1
    STDERR "slice-2d on device 62 [^\n]*\n(.*\n)?[^\n]*slice-2d on device 63 [^\n]*\n(.*\n)?[^\n]*slice-outer on device 62 [^\n]*\n(.*\n)?[^\n]*slice-outer on device 63 "
    MATCH_FILE "@WORK@/t.json|\"id\": \"cpu-serial\""
    ARGS run --devices 62,63 --test-devices-present 64 ${small} --strategy slice-2d,cpu-serial,slice-outer -q -o @WORK@/t.json)
# sweep: the points dealt in turn (32 and 256 to device 61, 64 to 62, 128 to 63), the errors
# back at their points in the sweep's order, the CPU strategy's runs point by point.
slicescope_cli_test(sweep_devices_workers EXIT 1
    STDERR "block 32: slice-2d: slice-2d on device 61 .*block 64: slice-2d: slice-2d on device 62 .*block 128: slice-2d: slice-2d on device 63 .*block 256: slice-2d: slice-2d on device 61 "
    MATCH_FILE "@WORK@/s.json|\"id\": \"cpu-serial@block=32\".*\"id\": \"cpu-serial@block=64\".*\"id\": \"cpu-serial@block=128\".*\"id\": \"cpu-serial@block=256\""
    ARGS sweep --param block --values 32,64,128,256 --devices 61,62,63 --test-devices-present 64 ${small}
         --strategy slice-2d,cpu-serial -q -o @WORK@/s.json)
