import { render } from 'preact';
import { z } from 'zod';
import { App } from './app';
import './styles.css';

// The page's Content-Security-Policy allows no eval: zod must not try to compile its checks.
z.config({ jitless: true });

const root = document.getElementById('app');
if (root) render(<App />, root);
