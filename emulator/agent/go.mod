module lfnlab/agent

go 1.19
