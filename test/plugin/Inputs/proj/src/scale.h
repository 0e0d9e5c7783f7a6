// scale.h — found through the quoted include of scale.cu, from its own folder.
#define SCALE 2.0f
