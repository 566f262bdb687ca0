// Package datasets reads real networks stored in graph-tool's binary .gt
// format, the form in which Debian's python3-graph-tool package ships
// graph-tool's collection (the AS-level Internet, e-mail Enron, the US
// power grid, cond-mat co-authorships, and the football, polbooks and
// polblogs networks with ground-truth labels).
//
// The data are never part of the repository: scripts/fetch-datasets.sh
// downloads the Debian package (no install) and copies its .gt.gz files into
// a cache directory (Dir: $GRAPHCLOAK_DATASETS or .cache/datasets). ReadGT
// reads any .gt stream, plain or gzip-compressed, with all its property
// maps; GT.Graph turns it into a simple undirected laplacian.Graph.
package datasets
