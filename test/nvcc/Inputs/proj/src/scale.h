// scale.h — a header found through a "quoted" include next to scale.cu.
#define SCALE 2.0f
