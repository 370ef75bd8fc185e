/**
 * The option of a describe block whose tests follow one user's flow, each starting where the one before
 * it stopped: under `--sequence.shuffle` they keep their order, while the files and the describe blocks
 * (each with its own browser and daemon) still run in a random order.
 */
export const USER_FLOW = { shuffle: false } as const;
