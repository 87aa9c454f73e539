module hopsig/tools/ndnd

go 1.25.0

require github.com/named-data/ndnd v1.5.3
