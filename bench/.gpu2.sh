mkdir -p /tmp/pt && tar xJf build-static/dist/phobos-tools.tar.xz -C /tmp/pt
B=/tmp/pt/bin
timeout 420 python3 bench/gpu_suite.py $B --only=attention,softmax,tf32 2>&1 | tail -40
