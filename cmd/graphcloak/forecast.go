package main

// sourceMassUsage is --source-mass's help, one text on locate, release
// and serve.
const sourceMassUsage = "total source mass (units) the readings carry, stated: the verdict's forecast simulates it, and the exact node's privacy at it is printed " +
	"(a per-node release protects one unit α; 0: locate estimates the mass from the release, with its 95% lower bound; a dry run and --refuse-at-chance judge by the forecast by source mass)"
