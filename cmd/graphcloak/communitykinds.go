package main

import "github.com/graphcloak/graphcloak/community"

// communityKinds is which rows of the communities-kinds table
// (community.SpecKinds) command's --communities takes: the communities
// command detects; locate, release and serve read a partition; plan and
// experiment score simulations against one. Help, completion and the
// checks read it.
func communityKinds(command string) func(community.SpecKind) bool {
	switch command {
	case "communities":
		return func(k community.SpecKind) bool { return k.Detect }
	case "locate", "release", "serve":
		return func(k community.SpecKind) bool { return k.Located }
	}
	return func(k community.SpecKind) bool { return k.Scored }
}

// communityKindsHelp lists the kinds command's --communities takes.
func communityKindsHelp(command string) string {
	return community.SpecKinds.Describe(communityKinds(command))
}
