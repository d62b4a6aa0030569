#!/usr/bin/env node
import '../dist/kernel/cli/main.js';
