// feat.h — reached only through -I Inputs/feat-inc.
#define FEAT_SCALE 3.0f
