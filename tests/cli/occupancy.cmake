# `occupancy` and `devices` (docs/design.md, "Theoretical occupancy"): the calculator and the presets through the real CLI.

# docs/design.md ("Theoretical occupancy"): on the H200 a 56-register kernel with 1024-thread blocks runs 1 block/SM.
slicescope_cli_test(occupancy_h200_json
    MATCH "\"active_blocks_per_sm\": 1,.*\"limiter\": \"registers\",.*\"occupancy\": 0\\.5,"
    ARGS occupancy --device h200 --block 1024 --regs 56 --json)
slicescope_cli_test(occupancy_h200_text
    MATCH "active blocks per SM  1.*occupancy             50\\.0 %.*Registers limit each SM to 1 block of 1024 threads"
    ARGS occupancy --device h200 --block 1024 --regs 56)
# A launch that cannot run is an answer, not an error.
slicescope_cli_test(occupancy_cannot_launch
    MATCH "\"active_blocks_per_sm\": 0,.*cannot launch.*\"limiter\": \"registers\""
    ARGS occupancy --device h200 --block 1024 --regs 255 --json)
slicescope_cli_test(occupancy_smem_needs_optin
    MATCH "active blocks per SM  0.*without opting in"
    ARGS occupancy --device h200 --block 256 --regs 32 --smem 60000)
# 60000 + 1024 reserved, rounded to 61056 bytes: 3 blocks in 233472.
slicescope_cli_test(occupancy_smem_optin
    MATCH "\"active_blocks_per_sm\": 3,.*\"limiter\": \"shared-memory\""
    ARGS occupancy --device h200 --block 256 --regs 32 --smem 60000 --smem-optin --json)
# No register use sets no register bound: null, not a huge number.
slicescope_cli_test(occupancy_unlimited_is_null
    MATCH "\"registers\": null"
    ARGS occupancy --device t4 --block 128 --regs 0 --json)
slicescope_cli_test(occupancy_regs_over_device_max EXIT 2 STDERR "0 to 63"
    ARGS occupancy --device quadro-k2000 --block 256 --regs 64)
slicescope_cli_test(occupancy_negative_smem EXIT 2 STDERR "--smem"
    ARGS occupancy --device h200 --block 256 --regs 32 --smem -1)

# `devices`: the presets, whether or not this machine has a GPU.
slicescope_cli_test(devices_lists_presets
    MATCH "CUDA devices:.*Presets.*h200 .*NVIDIA H200.*cc 9\\.0, 132 SMs.*h100-sxm.*a100-sxm4-80gb.*rtx-4090.*rtx-3090.*t4 .*gtx-1080-ti.*model only.*gtx-970.*quadro-k2000.*cc 3\\.0"
    ARGS devices)
# (No square brackets in a MATCH: CMake would read them as a bracketed list element.)
slicescope_cli_test(devices_json
    MATCH "\"devices\": .*\"presets\": .*\"id\": \"h200\".*\"pinned_htod_gbps\": 55\\.0.*\"sources\": .*\"id\": \"h100-sxm\".*\"id\": \"a100-sxm4-80gb\".*\"id\": \"rtx-4090\".*\"id\": \"rtx-3090\".*\"id\": \"t4\".*\"id\": \"gtx-1080-ti\".*\"id\": \"gtx-970\".*\"id\": \"quadro-k2000\".*\"runnable_with_cuda13\": false"
    ARGS devices --json)
